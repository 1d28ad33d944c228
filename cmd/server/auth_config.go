package main

import (
	"flag"
	"os"
	"strings"

	"singletable/auth"
)

// authFlags binds the AUTH_* settings to flags whose defaults are the environment's (see
// auth.Settings). The HS256 secret has no flag: it comes from the environment only, so that it
// does not show in process listings, either as AUTH_HS256_SECRET or read from the file
// AUTH_HS256_SECRET_FILE names (a container's secret, or one a compose service generated).
func authFlags(fs *flag.FlagSet, c *config, env envReader) {
	a := &c.auth
	fs.StringVar(&a.JWKSURL, "auth-jwks-url", env.getenv("AUTH_JWKS_URL"), "the identity provider's JWKS URL, for RS256/ES256 tokens (env AUTH_JWKS_URL)")
	fs.StringVar(&a.Issuer, "auth-issuer", env.getenv("AUTH_ISSUER"), "required token issuer, iss (env AUTH_ISSUER)")
	fs.StringVar(&a.Audience, "auth-audience", env.getenv("AUTH_AUDIENCE"), "required token audience, aud (env AUTH_AUDIENCE)")
	fs.BoolVar(&a.Disabled, "auth-disabled", env.Bool("AUTH_DISABLED", false), "accept every request without a token, as admin: local experiments only (env AUTH_DISABLED)")
	fs.BoolVar(&a.DevTokens, "dev-tokens", env.Bool("AUTH_DEV_TOKENS", false), "print tokens for sample principals at start; needs AUTH_HS256_SECRET and a loopback HOST (env AUTH_DEV_TOKENS)")
	fs.BoolVar(&c.devTokensBehindLoopback, "dev-tokens-behind-loopback", env.Bool("AUTH_DEV_TOKENS_BEHIND_LOOPBACK", false), "let -dev-tokens listen on a HOST that is not loopback, because everything in front of it is (a container whose port is published on 127.0.0.1 only) (env AUTH_DEV_TOKENS_BEHIND_LOOPBACK)")
	a.HS256Secret = env.getenv("AUTH_HS256_SECRET")
	if path := env.getenv("AUTH_HS256_SECRET_FILE"); path != "" {
		if a.HS256Secret != "" {
			env.bad("AUTH_HS256_SECRET and AUTH_HS256_SECRET_FILE: set one of them, not both")
		} else if b, err := os.ReadFile(path); err != nil {
			env.bad("AUTH_HS256_SECRET_FILE: %v", err)
		} else {
			a.HS256Secret = strings.TrimSpace(string(b))
		}
	}
}

// checkDevTokenListener refuses development tokens on a listen address other machines can reach:
// the playground page needs no token and carries the admin's. AUTH_DEV_TOKENS_BEHIND_LOOPBACK
// lifts the rule for a server whose own address is open but whose network is not, as in a
// container whose port is published on the host's 127.0.0.1 only; the Host header check
// (server.Config.LoopbackHostOnly) stays on either way.
func checkDevTokenListener(c config, bad func(string, ...any)) {
	if c.auth.DevTokens && !c.devTokensBehindLoopback && !auth.Loopback(c.guard.host) {
		bad("AUTH_DEV_TOKENS / -dev-tokens: listen on loopback only (HOST=127.0.0.1), since the playground page then carries an admin token; " +
			"behind a port published on 127.0.0.1 only, set AUTH_DEV_TOKENS_BEHIND_LOOPBACK=true")
	}
}
