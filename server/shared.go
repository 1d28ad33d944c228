package server

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// What a fleet of instances shares (package fleet implements both in Redis; cmd/server sets them
// when REDIS_URL is set). Without them every instance keeps its own buckets and persisted
// queries, as a single instance needs. With them, each call that fails (Redis unreachable) is
// answered from the instance's own state instead (sharedGate): requests never fail because Redis
// does, they only lose the fleet-wide view of a principal's limits for as long as it is out.

// SharedLimits holds the per-principal buckets of the rate limiter and of the capacity budget for
// the whole fleet: Allow takes one request's token; Reserve takes an operation's price before it
// runs, as much of it as the bucket holds (taken; none, with the wait until a token is there,
// refuses the operation), and Settle squares the account
// with what it consumed once it ran, returning what is left. Amounts are whole tokens of buckets
// filling at rate per second up to burst.
type SharedLimits interface {
	Allow(ctx context.Context, key string, rate float64, burst int) (ok bool, wait time.Duration, err error)
	Reserve(ctx context.Context, key string, units int, rate float64, burst int) (taken int, wait time.Duration, err error)
	Settle(ctx context.Context, key string, reserved, consumed int, rate float64, burst int) (left int, err error)
}

// SharedPersistedQueries holds the persisted queries of every principal for the whole fleet.
type SharedPersistedQueries interface {
	PersistedQuery(ctx context.Context, principal, hash string) (query string, ok bool, err error)
	PersistQuery(ctx context.Context, principal, hash, query string) error
}

// The stores whose fallbacks Config.OnSharedFallback names.
const (
	SharedRate      = "rate"
	SharedCapacity  = "capacity"
	SharedPersisted = "persisted_queries"
)

// sharedRetry is how long an instance answers from its own state after a shared store failed,
// before it asks the store again: an unreachable Redis costs one timeout a second, not one per
// request.
const sharedRetry = time.Second

// sharedGate decides, for one shared store, whether to ask it, and notes what it answered. The
// first failure of an outage and the recovery are logged; every request answered from the
// instance's own state is counted (Config.OnSharedFallback: the metric).
type sharedGate struct {
	what       string
	log        *slog.Logger
	onFallback func(what string)
	now        func() time.Time

	mu        sync.Mutex
	down      bool
	downSince time.Time
	retryAt   time.Time
}

func newSharedGate(what string, cfg Config) *sharedGate {
	return &sharedGate{what: what, log: cfg.Logger, onFallback: cfg.OnSharedFallback, now: time.Now}
}

// try says whether to ask the shared store now; false counts a fallback.
func (g *sharedGate) try() bool {
	g.mu.Lock()
	skip := g.down && g.now().Before(g.retryAt)
	g.mu.Unlock()
	if skip {
		g.fellBack()
	}
	return !skip
}

// done notes the store's answer: err nil ends an outage; an error starts or prolongs one, and
// counts a fallback (the caller answers from its own state).
func (g *sharedGate) done(err error) {
	g.mu.Lock()
	now := g.now()
	switch {
	case err == nil && g.down:
		g.down = false
		g.log.Info("the fleet's shared state answers again; limits hold across the fleet", "store", g.what, "outage", now.Sub(g.downSince).String())
	case err != nil && !g.down:
		g.down, g.downSince = true, now
		g.log.Warn("the fleet's shared state cannot be reached; this instance answers from its own state until it can", "store", g.what, "error", err.Error())
	}
	if err != nil {
		g.retryAt = now.Add(sharedRetry)
	}
	g.mu.Unlock()
	if err != nil {
		g.fellBack()
	}
}

func (g *sharedGate) fellBack() {
	if g.onFallback != nil {
		g.onFallback(g.what)
	}
}

// errNotShared answers sharedPersisted's calls when the instance keeps its persisted queries to
// itself (no shared store, or one that failed a moment ago).
var errNotShared = errors.New("persisted queries are not shared")

// sharedPersisted is the fleet's persisted-query store behind its gate; a nil one is none.
type sharedPersisted struct {
	store SharedPersistedQueries
	gate  *sharedGate
}

func newSharedPersisted(cfg Config) *sharedPersisted {
	if cfg.SharedPersistedQueries == nil {
		return nil
	}
	return &sharedPersisted{store: cfg.SharedPersistedQueries, gate: newSharedGate(SharedPersisted, cfg)}
}

func (s *sharedPersisted) get(ctx context.Context, hash string) (string, bool, error) {
	p, ok := principalKey(ctx)
	if s == nil || !ok || !s.gate.try() {
		return "", false, errNotShared
	}
	q, found, err := s.store.PersistedQuery(ctx, p, hash)
	s.gate.done(err)
	return q, found, err
}

func (s *sharedPersisted) add(ctx context.Context, hash, query string) error {
	p, ok := principalKey(ctx)
	if s == nil || !ok || !s.gate.try() {
		return errNotShared
	}
	err := s.store.PersistQuery(ctx, p, hash, query)
	s.gate.done(err)
	return err
}
