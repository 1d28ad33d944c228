package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"singletable/auth"
	"singletable/fleet"
	"singletable/fleet/fleettest"
	"singletable/repository/store/storetest"
	"singletable/server"
)

// Two servers on one Redis share a principal's rate limit: its burst spent on one, the other
// refuses it; another principal is unaffected.
func TestSharedRateLimitHoldsAcrossInstances(t *testing.T) {
	f, err := fleet.Open(fleettest.URL(t), fleet.Options{Prefix: "test-" + t.Name() + ":"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	repo := storetest.New(t)
	cfg := server.Config{RateLimitRPS: 0.5, RateLimitBurst: 3, SharedLimits: f}
	one, two := newAPIOn(t, repo, cfg), newAPIOn(t, repo, cfg)
	const q = `{ __typename }`
	for i, a := range []*api{one, two, one} {
		if r := a.query(q, nil); r.status != http.StatusOK {
			t.Fatalf("request %d within the burst: %d %+v", i+1, r.status, r.Errors)
		}
	}
	if r := two.query(q, nil); r.status != http.StatusTooManyRequests || r.code(t) != "RATE_LIMITED" || r.header.Get("Retry-After") == "" {
		t.Fatalf("4th request, on the other instance: %d %+v", r.status, r.Errors)
	}
	if r := two.as(authClaims("someone-else")).query(q, nil); r.status != http.StatusOK {
		t.Fatalf("another principal: %d %+v", r.status, r.Errors)
	}
}

// With Redis away, requests are served: the limits and the persisted queries fall back to the instance's own buckets (which
// still refuse past the burst), the outage is logged once and every fallback counted.
func TestLimitsAndPersistedQueriesFallBackToTheInstanceWhileRedisIsAway(t *testing.T) {
	redis := fleettest.Start(t)
	f, err := fleet.Open(redis.URL(), fleet.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	redis.Stop()
	var fallbacks sync.Map
	logs := &warnings{n: map[string]int{}}
	a := newAPI(t, server.Config{RateLimitRPS: 0.5, RateLimitBurst: 2, CapacityBudgetRCU: 100, SharedLimits: f, SharedPersistedQueries: f,
		Logger:           slog.New(logs),
		OnSharedFallback: func(store string) { n, _ := fallbacks.LoadOrStore(store, new(atomic.Int64)); n.(*atomic.Int64).Add(1) }})
	const q = `{ organizations { edges { cursor } } }`
	for range 2 {
		a.ok(q, nil, nil)
	}
	if r := a.query(q, nil); r.status != http.StatusTooManyRequests {
		t.Fatalf("past the burst, with Redis away: %d %+v", r.status, r.Errors)
	}
	// Persisted queries are kept by the instance meanwhile.
	apq := a.as(authClaims("apq-user"))
	const doc = `{ __typename }`
	if r := sendPersisted(t, apq, doc, sha256Hex(doc)); r.status != http.StatusOK || len(r.Errors) > 0 {
		t.Fatalf("registering a persisted query with Redis away: %d %+v", r.status, r.Errors)
	}
	if r := sendPersisted(t, apq, "", sha256Hex(doc)); r.status != http.StatusOK || len(r.Errors) > 0 {
		t.Fatalf("the hash alone with Redis away: %d %+v", r.status, r.Errors)
	}
	for _, store := range []string{server.SharedRate, server.SharedCapacity, server.SharedPersisted} {
		if n, ok := fallbacks.Load(store); !ok || n.(*atomic.Int64).Load() < 2 {
			t.Errorf("fallbacks of %s not counted", store)
		}
	}
	if n := logs.count("the fleet's shared state cannot be reached; this instance answers from its own state until it can"); n != 3 {
		t.Errorf("the outage was logged %d times, want once per store (rate, capacity, persisted queries)", n)
	}
}

func authClaims(subject string) auth.Claims {
	return auth.Claims{Subject: subject, Roles: []string{"admin"}}
}

// warnings is a log handler that counts the warnings, by message.
type warnings struct {
	mu sync.Mutex
	n  map[string]int
}

func (w *warnings) Enabled(context.Context, slog.Level) bool { return true }
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler       { return w }
func (w *warnings) WithGroup(string) slog.Handler            { return w }

func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn {
		w.mu.Lock()
		w.n[r.Message]++
		w.mu.Unlock()
	}
	return nil
}

func (w *warnings) count(msg string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n[msg]
}
