package main

import (
	"flag"

	"singletable/auth"
)

// authFlags binds the AUTH_* settings to flags whose defaults are the environment's (see
// auth.Settings). The HS256 secret has no flag: it comes from the environment only, so that it
// does not show in process listings.
func authFlags(fs *flag.FlagSet, c *auth.Settings, env envReader) {
	fs.StringVar(&c.JWKSURL, "auth-jwks-url", env.getenv("AUTH_JWKS_URL"), "the identity provider's JWKS URL, for RS256/ES256 tokens (env AUTH_JWKS_URL)")
	fs.StringVar(&c.Issuer, "auth-issuer", env.getenv("AUTH_ISSUER"), "required token issuer, iss (env AUTH_ISSUER)")
	fs.StringVar(&c.Audience, "auth-audience", env.getenv("AUTH_AUDIENCE"), "required token audience, aud (env AUTH_AUDIENCE)")
	fs.BoolVar(&c.Disabled, "auth-disabled", env.Bool("AUTH_DISABLED", false), "accept every request without a token, as admin: local experiments only (env AUTH_DISABLED)")
	fs.BoolVar(&c.DevTokens, "dev-tokens", env.Bool("AUTH_DEV_TOKENS", false), "print tokens for sample principals at start; needs AUTH_HS256_SECRET (env AUTH_DEV_TOKENS)")
	c.HS256Secret = env.getenv("AUTH_HS256_SECRET")
}
