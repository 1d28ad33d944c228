package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"singletable/apperr"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
)

// provider is an identity provider's JWKS endpoint whose keys the test rotates.
type provider struct {
	mu      sync.Mutex
	set     jwk.Set
	fetches atomic.Int64
	down    atomic.Bool
	srv     *httptest.Server
}

func newProvider(t *testing.T) *provider {
	p := &provider{set: jwk.NewSet()}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		p.fetches.Add(1)
		if p.down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(p.set)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// publish replaces the provider's keys with the public halves of keys.
func (p *provider) publish(t *testing.T, keys ...jwk.Key) {
	t.Helper()
	set := jwk.NewSet()
	for _, k := range keys {
		pub, err := k.PublicKey()
		if err != nil {
			t.Fatal(err)
		}
		if err := set.AddKey(pub); err != nil {
			t.Fatal(err)
		}
	}
	p.mu.Lock()
	p.set = set
	p.mu.Unlock()
}

// signingKey returns a private key with a key id (RSA for RS256, P-256 for ES256).
func signingKey(t *testing.T, kid string, rsaKey bool) jwk.Key {
	t.Helper()
	var raw any
	var err error
	if rsaKey {
		raw, err = rsa.GenerateKey(rand.Reader, 2048)
	} else {
		raw, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		t.Fatal(err)
	}
	k, err := jwk.Import(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Set(jwk.KeyIDKey, kid); err != nil {
		t.Fatal(err)
	}
	return k
}

func TestJWKSKeysRotate(t *testing.T) {
	idp := newProvider(t)
	k1, k2 := signingKey(t, "k1", true), signingKey(t, "k2", false)
	idp.publish(t, k1)
	v, err := New(Config{JWKSURL: idp.srv.URL, Issuer: "https://idp.example/", Audience: "api", MinRefresh: -1, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	c := claims(map[string]any{"iss": "https://idp.example/", "aud": []string{"api"}})
	ctx := context.Background()
	if p, err := v.Verify(ctx, sign(t, jwa.RS256(), k1, c)); err != nil || p.Subject != "alice" {
		t.Fatalf("RS256 with k1: %+v %v", p, err)
	}
	if _, err := v.Verify(ctx, sign(t, jwa.RS256(), k1, c)); err != nil || idp.fetches.Load() != 1 {
		t.Fatalf("the cached set should serve the second token: %v, %d fetches", err, idp.fetches.Load())
	}
	// The provider rotates to k2: a token naming k2 makes the verifier fetch the set again.
	idp.publish(t, k2)
	if _, err := v.Verify(ctx, sign(t, jwa.ES256(), k2, c)); err != nil || idp.fetches.Load() != 2 {
		t.Fatalf("ES256 with rotated k2: %v, %d fetches", err, idp.fetches.Load())
	}
	// k1 was withdrawn: its tokens are refused now.
	wantRefused(t, v, sign(t, jwa.RS256(), k1, c), "signing key is not known")
	// Issuer and audience are checked; HS256 is refused without a secret (no algorithm
	// confusion), and a key of the set does not verify another algorithm.
	wantRefused(t, v, sign(t, jwa.ES256(), k2, claims(map[string]any{"iss": "https://evil.example/", "aud": []string{"api"}})), "issuer")
	wantRefused(t, v, sign(t, jwa.ES256(), k2, claims(map[string]any{"iss": "https://idp.example/", "aud": []string{"web"}})), "audience")
	wantRefused(t, v, sign(t, jwa.HS256(), secret, c), "algorithm is not accepted")
	wantRefused(t, v, sign(t, jwa.RS256(), signingKey(t, "k2", true), c), "signature")
}

func TestJWKSRefreshIsRateLimited(t *testing.T) {
	idp := newProvider(t)
	k1 := signingKey(t, "k1", false)
	idp.publish(t, k1)
	clock := now
	v, err := New(Config{JWKSURL: idp.srv.URL, MinRefresh: time.Minute, MaxKeyAge: time.Hour, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 20 {
		wantRefused(t, v, sign(t, jwa.ES256(), signingKey(t, "made-up", false), claims(nil)), "signing key is not known")
	}
	if n := idp.fetches.Load(); n != 1 {
		t.Fatalf("made-up key ids caused %d fetches, want 1", n)
	}
	if _, err := v.Verify(ctx, sign(t, jwa.ES256(), k1, claims(nil))); err != nil {
		t.Fatal(err)
	}
	// After MaxKeyAge the set is fetched again; a provider that is down keeps the known keys.
	idp.down.Store(true)
	clock = now.Add(2 * time.Hour)
	c := claims(map[string]any{"exp": clock.Add(time.Hour)})
	if _, err := v.Verify(ctx, sign(t, jwa.ES256(), k1, c)); err != nil || idp.fetches.Load() != 2 {
		t.Fatalf("stale set with the provider down: %v, %d fetches", err, idp.fetches.Load())
	}
}

func TestJWKSUnreachableIsUnavailable(t *testing.T) {
	idp := newProvider(t)
	idp.down.Store(true)
	v, err := New(Config{JWKSURL: idp.srv.URL, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(context.Background(), sign(t, jwa.RS256(), signingKey(t, "k1", true), claims(nil)))
	if apperr.CodeOf(err) != apperr.CodeUnavailable {
		t.Fatalf("err %v, want UNAVAILABLE", err)
	}
}
