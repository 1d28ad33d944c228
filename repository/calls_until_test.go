package repository_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/store/storetest"
)

// A context WithCallsUntil bounds makes its calls while until is live, cancels the one in flight
// when it ends, and makes none after: the call fails with until's error and never reaches
// DynamoDB, nor the Meter. Its own context, which nothing cancels, stays as it was.
func TestWithCallsUntil(t *testing.T) {
	var slow atomic.Bool // once the table is made, every call takes 2 s (less when cancelled)
	repo := storetest.New(t, func(c *repository.Config) {
		c.WrapTransport = repotest.Chain(func(next http.RoundTripper) http.RoundTripper {
			latency := repotest.Latency(2*time.Second, 0)(next)
			return roundTrip(func(r *http.Request) (*http.Response, error) {
				if slow.Load() {
					return latency.RoundTrip(r)
				}
				return next.RoundTrip(r)
			})
		}, c.WrapTransport)
	})
	slow.Store(true)
	ctx, meter := repository.WithMeter(context.Background())
	until, end := context.WithCancel(context.Background())
	bound := repository.WithCallsUntil(context.WithoutCancel(ctx), until)
	time.AfterFunc(200*time.Millisecond, end)
	start := time.Now()
	if _, err := repo.ListOrganizations(bound, repository.PageArgs{First: 1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a call in flight as until ends: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("the call in flight took %v after until ended", d)
	}
	if _, err := repo.ListOrganizations(bound, repository.PageArgs{First: 1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a call after until ended: %v", err)
	}
	if u := meter.Usage(); u.TotalCalls != 1 || bound.Err() != nil {
		t.Fatalf("%d calls metered (want the one cancelled in flight), the context's error %v", u.TotalCalls, bound.Err())
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
