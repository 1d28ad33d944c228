package auth

import (
	"context"
	"net/http"
	"sync"
	"time"

	"singletable/apperr"

	"github.com/lestrrat-go/jwx/v3/jwk"
)

// keySet caches an identity provider's JWKS. It is fetched on first use, again when a token names
// a key id it lacks (the provider rotated its keys; at most once per minRefresh, so made-up key
// ids cost the provider little), and again once it is older than maxAge (keys the provider
// withdrew stop being accepted). A failed fetch keeps the keys already known.
type keySet struct {
	url        string
	client     *http.Client
	minRefresh time.Duration
	maxAge     time.Duration
	now        func() time.Time

	mu      sync.Mutex
	set     jwk.Set
	fetched time.Time // when set was fetched
	tried   time.Time // when a fetch was last attempted
}

func newKeySet(cfg Config) *keySet {
	ks := &keySet{url: cfg.JWKSURL, client: cfg.HTTPClient, minRefresh: cfg.MinRefresh, maxAge: cfg.MaxKeyAge, now: cfg.Now}
	if ks.client == nil {
		ks.client = &http.Client{Timeout: 10 * time.Second}
	}
	if ks.minRefresh == 0 {
		ks.minRefresh = 10 * time.Second
	}
	if ks.maxAge == 0 {
		ks.maxAge = time.Hour
	}
	if ks.now == nil {
		ks.now = time.Now
	}
	return ks
}

// lookup returns the public key a token's kid names. A token without a kid is accepted only while
// the set holds a single key.
func (ks *keySet) lookup(ctx context.Context, kid string) (jwk.Key, error) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	now := ks.now()
	stale := ks.set == nil || now.Sub(ks.fetched) >= ks.maxAge
	if !stale {
		if k, ok := ks.find(kid); ok {
			return k, nil
		}
	}
	if now.Sub(ks.tried) >= ks.minRefresh {
		ks.refresh(ctx, now)
	}
	if ks.set == nil {
		return nil, &apperr.Error{Code: apperr.CodeUnavailable, Message: "the identity provider's keys cannot be fetched; retry later"}
	}
	if k, ok := ks.find(kid); ok {
		return k, nil
	}
	return nil, unauthenticated("the token's signing key is not known")
}

// refresh fetches the set (with ks.mu held: concurrent lookups wait for one fetch rather than
// each making their own).
func (ks *keySet) refresh(ctx context.Context, now time.Time) {
	ks.tried = now
	set, err := jwk.Fetch(ctx, ks.url, jwk.WithHTTPClient(ks.client))
	if err != nil || set.Len() == 0 {
		return
	}
	ks.set, ks.fetched = set, now
}

func (ks *keySet) find(kid string) (jwk.Key, bool) {
	if ks.set == nil {
		return nil, false
	}
	if kid == "" {
		if ks.set.Len() != 1 {
			return nil, false
		}
		return ks.set.Key(0)
	}
	return ks.set.LookupKeyID(kid)
}
