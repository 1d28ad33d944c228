package server

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// The reasons a request is refused with 429 RATE_LIMITED, as Config.OnRateLimited and the
// refusal metric name them: its principal is over its request rate, or over its capacity budget.
const (
	RefusedRate     = "rate"
	RefusedCapacity = "capacity"
)

// DefaultCapacityBudgetRCU is CAPACITY_BUDGET_RCU's default: 500 read capacity units per second
// per principal, with a burst of 10 × that.
const DefaultCapacityBudgetRCU = 500

// budgetUnitsPerRCU: the buckets count half capacity units, the least one read consumes (an
// eventually consistent read of up to 4 KB), so that every read counts.
const budgetUnitsPerRCU = 2

// capacityBudget keeps a bucket of capacity units per principal (bucketTable: the rate limiter's
// table, with its eviction), filling at the budget's rate up to 10 × that. It has two operations,
// the whole contract of a budget store:
//   - reserve(key, estimate) before an operation runs: refused while the bucket is empty, else
//     the estimate (its plan's price, at most an eighth of the bucket: reservationOf) is taken at
//     once, so that concurrent operations of one principal see each other's reservations, and
//     up to eight run at once on a full bucket however heavy their worst case, each charged what
//     it consumed as it ends;
//   - settle(key, reserved, consumed) once it ran: charged consumed in all, the difference taken
//     or given back. A request cut short (its calls cancelled, whose capacity DynamoDB does not
//     report) is settled with max(price, consumed): it pays at least its plans' price
//     (requestBudget.settle).
type capacityBudget struct {
	*bucketTable
	// inflight are the units each principal's running operations reserved on this instance: a
	// refusal's wait is counted from the bucket as it stands once they settled (a reservation is
	// a transient debt, not consumption).
	mu       sync.Mutex
	inflight map[string]int
}

// reservationsPerBucket: an operation reserves at most 1/reservationsPerBucket of the bucket, so
// that a principal's ordinary parallelism (a browser opens six connections to a host) is not
// refused for what its operations could consume at worst, but only once what they consumed
// emptied the bucket. The price of that: the bucket may go into debt by what the operations in
// flight consume beyond their reservations, at most that many operations' prices.
const reservationsPerBucket = 8

// reservationOf is what an operation priced price (RCU) reserves.
func (c *capacityBudget) reservationOf(price float64) float64 {
	return min(price, float64(c.burst)/budgetUnitsPerRCU/reservationsPerBucket)
}

// hold and release count key's reservations in flight (units).
func (c *capacityBudget) hold(key string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[key] += n; c.inflight[key] <= 0 {
		delete(c.inflight, key)
	}
}

func (c *capacityBudget) held(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inflight[key]
}

// rcuPerPoint converts a plan's price (planner.Explanation.Price) into the capacity an operation
// reserves: 0.1 RCU per point, so a call that reads a page (50 points) reserves 5 RCU, what a
// page of a hundred small items consumes, and a lookup by key (½ point) 0.05 RCU.
const rcuPerPoint = 0.1

func newCapacityBudget(rcu float64, now func() time.Time) *capacityBudget {
	burst := max(1, int(math.Ceil(10*rcu*budgetUnitsPerRCU)))
	return &capacityBudget{bucketTable: newBucketTable(rate.Limit(rcu*budgetUnitsPerRCU), burst, now), inflight: map[string]int{}}
}

// units is rcu in the buckets' half units, rounded up.
func units(rcu float64) int { return int(math.Ceil(rcu*budgetUnitsPerRCU - 1e-9)) }

// reserveNow takes rcu capacity units from key's bucket if it holds any (ok), below zero if need
// be; else it says how long until the bucket holds capacity again.
func (c *capacityBudget) reserveNow(key string, rcu float64) (ok bool, wait time.Duration) {
	held := c.held(key)
	c.use(key, func(now time.Time, lim *rate.Limiter) {
		if t := lim.TokensAt(now); t <= 0 {
			wait = c.settledWait(t + float64(held))
			return
		}
		take(now, lim, units(rcu), c.burst)
	})
	return wait == 0, wait
}

// settledWait is how long until a bucket holding settled tokens, once the operations in flight
// settled, holds capacity again: the time to pay a debt at the budget's rate, or a moment when
// only the reservations in flight hold it empty (they settle as their operations end).
func (c *capacityBudget) settledWait(settled float64) time.Duration {
	if settled > 0 {
		return time.Second
	}
	return time.Duration(-settled/float64(c.limit)*float64(time.Second)) + time.Nanosecond
}

// square charges an operation that reserved reserved RCU what it consumed: the rest when it
// consumed more, the difference back when less. It returns what is left of the budget (RCU).
func (c *capacityBudget) square(key string, reserved, consumed float64) (left float64) {
	n := units(consumed) - units(reserved)
	c.use(key, func(now time.Time, lim *rate.Limiter) {
		take(now, lim, n, c.burst)
		left = lim.TokensAt(now) / budgetUnitsPerRCU
	})
	return left
}

// take removes n tokens from lim, below zero if need be (a reservation takes at most a burst),
// or gives -n back: a negative reservation adds its tokens, which the limiter caps at the burst.
func take(now time.Time, lim *rate.Limiter, n, burst int) {
	for n != 0 {
		k := max(-burst, min(n, burst))
		lim.ReserveN(now, k)
		n -= k
	}
}

// requestBudget is one request's account with its principal's budget store (budgetStore: the
// instance's buckets, or the fleet's).
type requestBudget struct {
	store    budgetStore
	local    *capacityBudget // the instance's budget: reservationOf, and the reservations in flight
	key      string
	mu       sync.Mutex
	shared   bool    // the reservations were taken by the fleet's store
	reserved float64 // RCU reserved by the request's operations
	priced   float64 // RCU their plans priced them at: what a request cut short is charged at least
	charged  float64 // RCU charged now: the reservations, then what was consumed
	settled  bool    // left is what the last settle returned
	left     float64
}

// reserve reserves an operation priced price (RCU) before it runs: its reservation
// (capacityBudget.reservationOf, reserveNow); refused, it says how long until the budget holds
// capacity again once the operations in flight settled.
func (b *requestBudget) reserve(ctx context.Context, price float64) (ok bool, wait time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ok, wait, held := b.store.reserve(ctx, b.key, b.local.reservationOf(price))
	if ok {
		b.shared = b.shared || held.shared
		b.reserved += held.rcu
		b.priced += price
		b.charged += held.rcu
		b.local.hold(b.key, units(held.rcu))
	}
	return ok, wait
}

// settle charges the request total, all it consumed so far (a response is settled when it is
// written, the request when it ends), or its reservations when it was cut short and they are
// more, and returns what is left of the budget (RCU). With nothing new to square it answers what
// the last settle left, without asking the store (in a fleet, a round trip to Redis).
func (b *requestBudget) settle(total float64, cutShort bool) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if cutShort {
		// The calls cancelled consumed capacity DynamoDB does not report: the request pays its
		// plans' price, so that aborting a request is never cheaper than letting it run.
		total = max(total, b.priced)
	}
	if b.settled && total == b.charged {
		return b.left
	}
	if !b.settled {
		b.local.hold(b.key, -units(b.reserved)) // settled: no longer in flight
	}
	b.left = b.store.settle(context.Background(), b.key, reservation{rcu: b.charged, shared: b.shared}, total)
	b.charged, b.settled = total, true
	return b.left
}
