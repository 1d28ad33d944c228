package auth

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"singletable/apperr"
	"singletable/globalid"
)

var secret = []byte("auth-tests-hs256-secret-0123456789abcdef")

var now = time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)

func hsVerifier(t testing.TB, cfg Config) *Verifier {
	t.Helper()
	cfg.HS256Secret = secret
	cfg.Now = func() time.Time { return now }
	v, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sign builds a token with the given claims (nil values are left out) and signs it.
func sign(t testing.TB, alg jwa.SignatureAlgorithm, key any, claims map[string]any) string {
	t.Helper()
	b := jwt.NewBuilder()
	for k, v := range claims {
		if v != nil {
			b = b.Claim(k, v)
		}
	}
	tok, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	s, err := jwt.Sign(tok, jwt.WithKey(alg, key))
	if err != nil {
		t.Fatal(err)
	}
	return string(s)
}

func claims(extra map[string]any) map[string]any {
	c := map[string]any{"sub": "alice", "roles": []string{"org-member"}, "org": globalid.Encode("Organization", "O1"),
		"exp": now.Add(time.Hour), "iat": now}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

func wantRefused(t *testing.T, v Authenticator, token, msg string) {
	t.Helper()
	_, err := v.Verify(context.Background(), token)
	if apperr.CodeOf(err) != apperr.CodeUnauthenticated {
		t.Fatalf("token accepted or wrong error: %v", err)
	}
	if !strings.Contains(err.(*apperr.Error).Message, msg) {
		t.Fatalf("message %q, want it to mention %q", err.(*apperr.Error).Message, msg)
	}
}

func TestHS256TokenGivesItsPrincipal(t *testing.T) {
	v := hsVerifier(t, Config{})
	p, err := v.Verify(context.Background(), sign(t, jwa.HS256(), secret, claims(nil)))
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != "alice" || p.Org != "O1" || !p.Has(RoleOrgMember) || p.Has(RoleAdmin) {
		t.Fatalf("principal %+v", p)
	}
	// A role given as one string counts; unknown roles grant nothing.
	p, err = v.Verify(context.Background(), sign(t, jwa.HS256(), secret, claims(map[string]any{"roles": "hr", "org": nil})))
	if err != nil || !p.Has(RoleHR) {
		t.Fatalf("%+v %v", p, err)
	}
	p, err = v.Verify(context.Background(), sign(t, jwa.HS256(), secret, claims(map[string]any{"roles": []string{"root", "superuser"}})))
	if err != nil || len(p.Roles) != 2 || p.MayUse("Query", "organizations") {
		t.Fatalf("%+v %v", p, err)
	}
	// MintHS256 makes tokens this verifier accepts.
	tok, err := MintHS256(secret, Claims{Subject: "bob", Roles: []string{"customer"}, Customer: globalid.Encode("Customer", "C1")}, MintOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := v.Verify(context.Background(), tok); err != nil || p.Customer != "C1" || !p.Has(RoleCustomer) {
		t.Fatalf("%+v %v", p, err)
	}
}

func TestTimeClaimsWithLeeway(t *testing.T) {
	v := hsVerifier(t, Config{})
	ok := func(extra map[string]any) {
		t.Helper()
		if _, err := v.Verify(context.Background(), sign(t, jwa.HS256(), secret, claims(extra))); err != nil {
			t.Fatalf("%v: %v", extra, err)
		}
	}
	ok(map[string]any{"exp": now.Add(-30 * time.Second)})
	ok(map[string]any{"nbf": now.Add(30 * time.Second)})
	ok(map[string]any{"iat": now.Add(30 * time.Second)})
	wantRefused(t, v, sign(t, jwa.HS256(), secret, claims(map[string]any{"exp": now.Add(-90 * time.Second)})), "expired")
	wantRefused(t, v, sign(t, jwa.HS256(), secret, claims(map[string]any{"nbf": now.Add(90 * time.Second)})), "not valid yet")
	wantRefused(t, v, sign(t, jwa.HS256(), secret, claims(map[string]any{"iat": now.Add(90 * time.Second)})), "not valid yet")
	wantRefused(t, v, sign(t, jwa.HS256(), secret, claims(map[string]any{"exp": nil})), "no exp")
}

func TestBadTokensAreRefused(t *testing.T) {
	v := hsVerifier(t, Config{Issuer: "https://issuer.example/", Audience: "api"})
	good := claims(map[string]any{"iss": "https://issuer.example/", "aud": []string{"api"}})
	if _, err := v.Verify(context.Background(), sign(t, jwa.HS256(), secret, good)); err != nil {
		t.Fatal(err)
	}
	with := func(k string, val any) map[string]any {
		c := claims(nil)
		for kk, vv := range good {
			c[kk] = vv
		}
		c[k] = val
		return c
	}
	// alg none: a header and payload with an empty signature.
	enc := base64.RawURLEncoding.EncodeToString
	none := enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc([]byte(`{"sub":"mallory","roles":["admin"],"exp":4102444800}`)) + "."
	wantRefused(t, v, none, "algorithm is not accepted")
	wantRefused(t, v, sign(t, jwa.HS384(), secret, good), "algorithm is not accepted")
	wantRefused(t, v, sign(t, jwa.HS256(), []byte("another-secret-of-enough-length-0123456789"), good), "signature")
	tampered := sign(t, jwa.HS256(), secret, good)
	parts := strings.Split(tampered, ".")
	parts[1] = enc([]byte(`{"sub":"mallory","roles":["admin"],"exp":4102444800,"iss":"https://issuer.example/","aud":["api"]}`))
	wantRefused(t, v, strings.Join(parts, "."), "signature")
	wantRefused(t, v, sign(t, jwa.HS256(), secret, with("iss", "https://other.example/")), "issuer")
	wantRefused(t, v, sign(t, jwa.HS256(), secret, with("aud", []string{"other"})), "audience")
	wantRefused(t, v, sign(t, jwa.HS256(), secret, with("sub", nil)), "no sub")
	wantRefused(t, v, sign(t, jwa.HS256(), secret, with("org", globalid.Encode("Customer", "C1"))), "org claim")
	wantRefused(t, v, sign(t, jwa.HS256(), secret, with("customer", "not-an-id")), "customer claim")
	wantRefused(t, v, "", "authentication required")
	wantRefused(t, v, "not.a.jwt", "not a JWT")
	wantRefused(t, v, "abc", "not a JWT")
	wantRefused(t, v, strings.Repeat("a.", 5000)+"a", "not a JWT")
}

func TestConfigIsChecked(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Fatal("a verifier without keys was built")
	}
	if _, err := New(Config{HS256Secret: []byte("short")}); err == nil || !strings.Contains(err.Error(), "32 bytes") {
		t.Fatalf("short secret: %v", err)
	}
	if _, err := MintHS256([]byte("short"), Claims{Subject: "x"}, MintOptions{}); err == nil {
		t.Fatal("minted with a short secret")
	}
}

func TestDisabledIsAdmin(t *testing.T) {
	p, err := Disabled().Verify(context.Background(), "")
	if err != nil || !p.Admin() {
		t.Fatalf("%+v %v", p, err)
	}
}

// FuzzVerify: whatever the bytes, Verify answers with a principal or an UNAUTHENTICATED error,
// never a panic, and accepts only the one genuine token it was seeded with.
func FuzzVerify(f *testing.F) {
	v := hsVerifier(f, Config{})
	genuine := sign(f, jwa.HS256(), secret, claims(nil))
	f.Add(genuine)
	f.Add("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.")
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, token string) {
		_, err := v.Verify(context.Background(), token)
		if err == nil && token != genuine {
			t.Fatalf("accepted %q", token)
		}
		if err != nil && apperr.CodeOf(err) != apperr.CodeUnauthenticated {
			t.Fatalf("error without UNAUTHENTICATED: %v", err)
		}
	})
}
