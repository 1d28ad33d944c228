package auth

import (
	"errors"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// MintOptions are the registered claims of a minted token besides its subject.
type MintOptions struct {
	// TTL is how long the token is valid (1 h when zero).
	TTL      time.Duration
	Issuer   string
	Audience string
	// Now is the issue time (time.Now() when zero).
	Now time.Time
}

// MintHS256 signs a token for c with the shared HS256 secret: what cmd/token and the server's
// -dev-tokens print, and what tests send. Production tokens come from an identity provider.
func MintHS256(secret []byte, c Claims, o MintOptions) (string, error) {
	if len(secret) < MinHS256SecretLen {
		return "", errors.New("auth: the HS256 secret must have at least 32 bytes")
	}
	if c.Subject == "" {
		return "", errors.New("auth: a token needs a subject")
	}
	if o.TTL == 0 {
		o.TTL = time.Hour
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	b := jwt.NewBuilder().Subject(c.Subject).IssuedAt(o.Now).Expiration(o.Now.Add(o.TTL))
	if o.Issuer != "" {
		b = b.Issuer(o.Issuer)
	}
	if o.Audience != "" {
		b = b.Audience([]string{o.Audience})
	}
	roles := c.Roles
	if roles == nil {
		roles = []string{}
	}
	b = b.Claim("roles", roles)
	if c.Org != "" {
		b = b.Claim("org", c.Org)
	}
	if c.Customer != "" {
		b = b.Claim("customer", c.Customer)
	}
	tok, err := b.Build()
	if err != nil {
		return "", err
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(jwa.HS256(), secret))
	if err != nil {
		return "", err
	}
	return string(signed), nil
}
