package server

import (
	"context"
	"math"
	"time"
)

// The limits of a fleet: the rate limiter's and the capacity budget's decisions go to
// Config.SharedLimits when it is set, and to the instance's own buckets otherwise or while it
// fails (sharedGate). Keys are the principal's (principalKey), prefixed with the limit's name.

// rateDecider is the rate limiter's decision for one request of key.
func rateDecider(cfg Config, local *rateLimiter) func(ctx context.Context, key string) (bool, time.Duration) {
	if cfg.SharedLimits == nil {
		return func(_ context.Context, key string) (bool, time.Duration) { return local.allow(key) }
	}
	gate := newSharedGate(SharedRate, cfg)
	rate, burst := float64(local.limit), local.burst
	return func(ctx context.Context, key string) (bool, time.Duration) {
		if gate.try() {
			ok, wait, err := cfg.SharedLimits.Allow(ctx, "rate:"+key, rate, burst)
			gate.done(err)
			if err == nil {
				return ok, wait
			}
		}
		return local.allow(key)
	}
}

// budgetStore holds the capacity budget's buckets: reserve takes an operation's price (RCU)
// before it runs, or refuses it with the wait until the bucket holds capacity again; settle
// squares what was charged so far (held) with what the request consumed in all, taking the rest
// or giving the difference back, and returns what is left (RCU).
type budgetStore interface {
	reserve(ctx context.Context, key string, rcu float64) (ok bool, wait time.Duration, held reservation)
	settle(ctx context.Context, key string, held reservation, consumed float64) (left float64)
	// state is where key's bucket stands, in the buckets' units: what the X-Capacity-* headers
	// report, from the store that decides.
	state(ctx context.Context, key string) bucketView
}

// reservation is what reserve took, and where: a settle must square it with the store that took
// it, even if the fleet's store failed in between.
type reservation struct {
	rcu    float64
	shared bool
}

// reserve is the in-process budget's (capacityBudget.reserveNow): an operation is refused while
// its principal's bucket is at or below zero; its price is taken at once (below zero if need be).
func (c *capacityBudget) reserve(_ context.Context, key string, rcu float64) (bool, time.Duration, reservation) {
	if ok, wait := c.reserveNow(key, rcu); !ok {
		return false, wait, reservation{}
	}
	return true, 0, reservation{rcu: rcu}
}

func (c *capacityBudget) settle(_ context.Context, key string, held reservation, consumed float64) float64 {
	return c.square(key, held.rcu, consumed)
}

func (c *capacityBudget) state(_ context.Context, key string) bucketView {
	tokens, untilFull := c.bucketTable.state(key)
	return bucketView{tokens, untilFull}
}

// sharedBudget is the capacity budget of a fleet. GCRA cannot tell an empty bucket from one
// holding a fraction, so an operation reserves at least one unit (the half RCU of the smallest
// read): an empty bucket refuses it, as the in-process budget does. An operation priced above
// what is left takes what is left (GCRA does not lend), so a fleet's principal never overdraws.
type sharedBudget struct {
	local  *capacityBudget
	shared SharedLimits
	gate   *sharedGate
}

func newBudgetStore(cfg Config, local *capacityBudget) budgetStore {
	if cfg.SharedLimits == nil {
		return local
	}
	return &sharedBudget{local: local, shared: cfg.SharedLimits, gate: newSharedGate(SharedCapacity, cfg)}
}

func (b *sharedBudget) reserve(ctx context.Context, key string, rcu float64) (bool, time.Duration, reservation) {
	if b.gate.try() {
		taken, wait, err := b.shared.Reserve(ctx, "capacity:"+key, max(1, units(rcu)), float64(b.local.limit), b.local.burst)
		b.gate.done(err)
		if err == nil && taken == 0 {
			return false, wait, reservation{shared: true}
		}
		if err == nil {
			return true, 0, reservation{rcu: float64(taken) / budgetUnitsPerRCU, shared: true}
		}
	}
	return b.local.reserve(ctx, key, rcu)
}

func (b *sharedBudget) settle(ctx context.Context, key string, held reservation, consumed float64) float64 {
	if held.shared && b.gate.try() {
		left, err := b.shared.Settle(ctx, "capacity:"+key, units(held.rcu), units(consumed), float64(b.local.limit), b.local.burst)
		b.gate.done(err)
		if err == nil {
			return float64(left) / budgetUnitsPerRCU
		}
		held = reservation{}
	}
	return b.local.settle(ctx, key, held, consumed)
}

// state reads the shared bucket: a settle of nothing answers what it holds without moving it.
func (b *sharedBudget) state(ctx context.Context, key string) bucketView {
	if b.gate.try() {
		left, err := b.shared.Settle(ctx, "capacity:"+key, 0, 0, float64(b.local.limit), b.local.burst)
		b.gate.done(err)
		if err == nil {
			missing := float64(b.local.burst - left)
			return bucketView{tokens: float64(left), untilFull: time.Duration(math.Ceil(missing / float64(b.local.limit) * float64(time.Second)))}
		}
	}
	return b.local.state(ctx, key)
}
