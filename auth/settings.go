package auth

import (
	"fmt"
	"net"
	"net/url"
)

// Settings say how a server authenticates requests: the AUTH_* environment variables, read (and
// on the server binary overridden by flags) with the binaries' other settings in
// cmd/internal/settings. The HS256 secret comes from the environment only, so that it does not
// show in process listings.
type Settings struct {
	// HS256Secret verifies (and, for development, signs) HS256 tokens: AUTH_HS256_SECRET.
	HS256Secret string
	// JWKSURL is the identity provider's key set, for RS256/ES256 tokens: AUTH_JWKS_URL.
	JWKSURL string
	// Issuer and Audience, when set, are required of every token: AUTH_ISSUER, AUTH_AUDIENCE.
	Issuer, Audience string
	// Disabled makes every request an admin, without a token (AUTH_DISABLED=true).
	Disabled bool
	// DevTokens prints tokens for sample principals at start (AUTH_DEV_TOKENS=true); it needs
	// the HS256 secret to sign them.
	DevTokens bool
}

// Problems lists what is wrong with s, each naming its variable (and the server's flag): a short
// secret, a JWKS URL that is not https (http only on loopback), no verifier at all unless
// authentication is disabled, development tokens without a secret to sign them.
func (s Settings) Problems() []string {
	var errs []string
	if s.HS256Secret != "" && len(s.HS256Secret) < MinHS256SecretLen {
		errs = append(errs, fmt.Sprintf("AUTH_HS256_SECRET: must have at least %d bytes (try: openssl rand -hex 32)", MinHS256SecretLen))
	}
	if s.JWKSURL != "" {
		u, err := url.Parse(s.JWKSURL)
		switch {
		case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
			errs = append(errs, fmt.Sprintf("AUTH_JWKS_URL / -auth-jwks-url: %q is not an http(s) URL", s.JWKSURL))
		case u.Scheme == "http" && !Loopback(u.Hostname()):
			errs = append(errs, "AUTH_JWKS_URL / -auth-jwks-url: keys must be fetched over https (http only from localhost)")
		}
	}
	if !s.Disabled && s.HS256Secret == "" && s.JWKSURL == "" {
		errs = append(errs, "no token verifier: set AUTH_JWKS_URL (an identity provider's keys) or AUTH_HS256_SECRET (local development), or AUTH_DISABLED=true to accept every request as admin")
	}
	if s.DevTokens && s.HS256Secret == "" {
		errs = append(errs, "AUTH_DEV_TOKENS / -dev-tokens: needs AUTH_HS256_SECRET to sign the tokens")
	}
	return errs
}

// Loopback reports whether host (a name or an address, without a port) is this machine only.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Authenticator builds the verifier s describes (Disabled when authentication is off).
func (s Settings) Authenticator() (Authenticator, error) {
	if s.Disabled {
		return Disabled(), nil
	}
	return New(Config{HS256Secret: []byte(s.HS256Secret), JWKSURL: s.JWKSURL, Issuer: s.Issuer, Audience: s.Audience})
}
