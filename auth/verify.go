package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"singletable/apperr"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// Authenticator turns a request's bearer token ("" when it sent none) into its Principal, or
// refuses it with an UNAUTHENTICATED error (UNAVAILABLE when the keys to check it cannot be had).
type Authenticator interface {
	Verify(ctx context.Context, token string) (Principal, error)
}

// Config configures token verification: a shared HS256 secret, an identity provider's JWKS, or
// both (each token is checked by the one its algorithm names).
type Config struct {
	// HS256Secret verifies HS256 tokens (local development and tests); at least 32 bytes.
	HS256Secret []byte
	// JWKSURL is the identity provider's key set (RS256 and ES256 keys), fetched, cached and
	// refreshed when a token names a key id the cache lacks.
	JWKSURL string
	// Issuer and Audience, when set, must match the token's `iss` and be in its `aud`.
	Issuer   string
	Audience string
	// Leeway is the clock skew allowed on exp, nbf and iat (60 s when zero).
	Leeway time.Duration
	// HTTPClient fetches the JWKS (a client with a 10 s timeout when nil).
	HTTPClient *http.Client
	// MinRefresh is the least time between two JWKS fetches caused by unknown key ids, so that
	// tokens with made-up key ids cannot make the server hammer the provider (10 s when zero;
	// negative: no wait, for tests).
	MinRefresh time.Duration
	// MaxKeyAge is how long a fetched key set is used before it is fetched again (1 h when zero),
	// so that keys the provider withdrew stop being accepted.
	MaxKeyAge time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// MinHS256SecretLen is the shortest HS256 secret accepted: 256 bits, the hash's size (RFC 7518
// §3.2).
const MinHS256SecretLen = 32

// maxTokenLen bounds the work spent on a client-supplied token before its signature is checked.
const maxTokenLen = 8192

// Verifier checks JWTs against Config. It is safe for concurrent use.
type Verifier struct {
	secret   []byte
	keys     *keySet
	issuer   string
	audience string
	leeway   time.Duration
	now      func() time.Time
}

// New returns a Verifier for cfg; at least one of HS256Secret and JWKSURL is required.
func New(cfg Config) (*Verifier, error) {
	if len(cfg.HS256Secret) == 0 && cfg.JWKSURL == "" {
		return nil, errors.New("auth: no verifier configured (an HS256 secret or a JWKS URL)")
	}
	if len(cfg.HS256Secret) > 0 && len(cfg.HS256Secret) < MinHS256SecretLen {
		return nil, fmt.Errorf("auth: the HS256 secret must have at least %d bytes", MinHS256SecretLen)
	}
	v := &Verifier{secret: cfg.HS256Secret, issuer: cfg.Issuer, audience: cfg.Audience, leeway: cfg.Leeway, now: cfg.Now}
	if v.leeway == 0 {
		v.leeway = 60 * time.Second
	}
	if v.now == nil {
		v.now = time.Now
	}
	if cfg.JWKSURL != "" {
		v.keys = newKeySet(cfg)
	}
	return v, nil
}

// The algorithms each kind of key verifies; any other algorithm (none included) is refused.
var (
	hmacAlgs = []jwa.SignatureAlgorithm{jwa.HS256()}
	jwksAlgs = []jwa.SignatureAlgorithm{jwa.RS256(), jwa.ES256()}
)

// Verify checks the token's shape (no repeated claim or header name: checkSegmentNames), its
// signature, its time claims (exp required; exp, nbf and iat with the leeway), issuer and
// audience, and returns the principal its claims describe.
func (v *Verifier) Verify(ctx context.Context, token string) (Principal, error) {
	if token == "" {
		return Principal{}, unauthenticated("authentication required: send an Authorization header with a Bearer token")
	}
	if len(token) > maxTokenLen || strings.Count(token, ".") != 2 {
		return Principal{}, unauthenticated("the bearer token is not a JWT")
	}
	if err := checkSegmentNames(token); errors.Is(err, errRepeatedName) {
		return Principal{}, unauthenticated("the token repeats a claim or header name")
	} else if err != nil {
		return Principal{}, unauthenticated("the bearer token is not a JWT")
	}
	msg, err := jws.Parse([]byte(token), jws.WithCompact())
	if err != nil || len(msg.Signatures()) != 1 {
		return Principal{}, unauthenticated("the bearer token is not a JWT")
	}
	keyOpt, err := v.keyFor(ctx, msg.Signatures()[0].ProtectedHeaders())
	if err != nil {
		return Principal{}, err
	}
	opts := []jwt.ParseOption{
		keyOpt,
		jwt.WithValidate(true),
		jwt.WithAcceptableSkew(v.leeway),
		jwt.WithClock(jwt.ClockFunc(v.now)),
		jwt.WithRequiredClaim("exp"),
	}
	if v.issuer != "" {
		opts = append(opts, jwt.WithIssuer(v.issuer))
	}
	if v.audience != "" {
		opts = append(opts, jwt.WithAudience(v.audience))
	}
	tok, err := jwt.Parse([]byte(token), opts...)
	if err != nil {
		return Principal{}, unauthenticated(refusal(err))
	}
	p, err := principalOf(claimsOf(tok))
	if err != nil {
		return Principal{}, err
	}
	if exp, ok := tok.Expiration(); ok {
		p.ValidUntil = exp.Add(v.leeway)
	}
	return p, nil
}

// keyFor is the key a token with header hdr is verified with: the HS256 secret, or the JWKS key
// its kid names, for the algorithms each accepts.
func (v *Verifier) keyFor(ctx context.Context, hdr jws.Headers) (jwt.ParseOption, error) {
	alg, ok := hdr.Algorithm()
	if !ok {
		return nil, unauthenticated("the token's algorithm is not accepted")
	}
	switch {
	case v.secret != nil && algIn(alg, hmacAlgs):
		return jwt.WithKey(alg, v.secret), nil
	case v.keys != nil && algIn(alg, jwksAlgs):
		kid, _ := hdr.KeyID()
		key, err := v.keys.lookup(ctx, kid)
		if err != nil {
			return nil, err
		}
		return jwt.WithKey(alg, key), nil
	}
	return nil, unauthenticated("the token's algorithm is not accepted")
}

// refusal is the client-safe reason a token was refused.
func refusal(err error) string {
	switch {
	case errors.Is(err, jwt.TokenExpiredError()):
		return "the token has expired"
	case errors.Is(err, jwt.TokenNotYetValidError()), errors.Is(err, jwt.InvalidIssuedAtError()):
		return "the token is not valid yet"
	case errors.Is(err, jwt.MissingRequiredClaimError()):
		return "the token has no exp claim"
	case errors.Is(err, jwt.InvalidIssuerError()):
		return "the token's issuer is not accepted"
	case errors.Is(err, jwt.InvalidAudienceError()):
		return "the token's audience is not accepted"
	}
	return "the token's signature or claims are invalid"
}

func algIn(alg jwa.SignatureAlgorithm, algs []jwa.SignatureAlgorithm) bool {
	for _, a := range algs {
		if a == alg {
			return true
		}
	}
	return false
}

// claimsOf reads the API's claims from a verified token. `roles` is an array of strings (a single
// string counts as one role); values of other types are ignored and grant nothing.
func claimsOf(tok jwt.Token) Claims {
	var c Claims
	c.Subject, _ = tok.Subject()
	var roles any
	if tok.Get("roles", &roles) == nil {
		switch rs := roles.(type) {
		case string:
			c.Roles = []string{rs}
		case []any:
			for _, r := range rs {
				if s, ok := r.(string); ok {
					c.Roles = append(c.Roles, s)
				}
			}
		case []string:
			c.Roles = rs
		}
	}
	c.Org = stringClaim(tok, "org")
	c.Customer = stringClaim(tok, "customer")
	return c
}

func stringClaim(tok jwt.Token, name string) string {
	var v any
	if tok.Get(name, &v) != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}

func unauthenticated(msg string) *apperr.Error {
	return &apperr.Error{Code: apperr.CodeUnauthenticated, Message: msg}
}

// disabled is the Authenticator of a server run with AUTH_DISABLED=true.
type disabled struct{}

func (disabled) Verify(context.Context, string) (Principal, error) { return AdminPrincipal(), nil }

// Disabled returns an Authenticator that makes every request, with or without a token, an admin.
// For local experiments only: the server logs a warning when it runs this way.
func Disabled() Authenticator { return disabled{} }
