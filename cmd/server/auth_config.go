package main

import (
	"flag"
	"fmt"
	"net"
	"net/url"

	"singletable/auth"
)

// authConfig is how requests are authenticated (the AUTH_* variables). Secrets (the HS256 secret)
// are read from the environment only, so that they do not show in process listings.
type authConfig struct {
	hs256Secret string
	jwksURL     string
	issuer      string
	audience    string
	// disabled makes every request an admin (AUTH_DISABLED=true); the server warns at start.
	disabled bool
	// devTokens prints tokens for sample principals after start (needs the HS256 secret).
	devTokens bool
}

func authFlags(fs *flag.FlagSet, c *authConfig, getenv func(string) string, envBool func(string, bool) bool) {
	fs.StringVar(&c.jwksURL, "auth-jwks-url", getenv("AUTH_JWKS_URL"), "the identity provider's JWKS URL, for RS256/ES256 tokens (env AUTH_JWKS_URL)")
	fs.StringVar(&c.issuer, "auth-issuer", getenv("AUTH_ISSUER"), "required token issuer, iss (env AUTH_ISSUER)")
	fs.StringVar(&c.audience, "auth-audience", getenv("AUTH_AUDIENCE"), "required token audience, aud (env AUTH_AUDIENCE)")
	fs.BoolVar(&c.disabled, "auth-disabled", envBool("AUTH_DISABLED", false), "accept every request without a token, as admin: local experiments only (env AUTH_DISABLED)")
	fs.BoolVar(&c.devTokens, "dev-tokens", envBool("AUTH_DEV_TOKENS", false), "print tokens for sample principals at start; needs AUTH_HS256_SECRET (env AUTH_DEV_TOKENS)")
}

// validate checks the settings after the flags are parsed and returns one message per problem.
func (c *authConfig) validate(getenv func(string) string) []string {
	c.hs256Secret = getenv("AUTH_HS256_SECRET")
	var errs []string
	if c.hs256Secret != "" && len(c.hs256Secret) < auth.MinHS256SecretLen {
		errs = append(errs, fmt.Sprintf("AUTH_HS256_SECRET: must have at least %d bytes (try: openssl rand -hex 32)", auth.MinHS256SecretLen))
	}
	if c.jwksURL != "" {
		u, err := url.Parse(c.jwksURL)
		switch {
		case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
			errs = append(errs, fmt.Sprintf("AUTH_JWKS_URL / -auth-jwks-url: %q is not an http(s) URL", c.jwksURL))
		case u.Scheme == "http" && !loopback(u.Hostname()):
			errs = append(errs, "AUTH_JWKS_URL / -auth-jwks-url: keys must be fetched over https (http only from localhost)")
		}
	}
	if !c.disabled && c.hs256Secret == "" && c.jwksURL == "" {
		errs = append(errs, "no token verifier: set AUTH_JWKS_URL (an identity provider's keys) or AUTH_HS256_SECRET (local development), or AUTH_DISABLED=true to accept every request as admin")
	}
	if c.devTokens && c.hs256Secret == "" {
		errs = append(errs, "AUTH_DEV_TOKENS / -dev-tokens: needs AUTH_HS256_SECRET to sign the tokens")
	}
	return errs
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// authenticator builds the request authenticator the configuration asks for.
func (c authConfig) authenticator() (auth.Authenticator, error) {
	if c.disabled {
		return auth.Disabled(), nil
	}
	v, err := auth.New(auth.Config{HS256Secret: []byte(c.hs256Secret), JWKSURL: c.jwksURL, Issuer: c.issuer, Audience: c.audience})
	if err != nil {
		return nil, err
	}
	return v, nil
}
