package server

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"singletable/apperr"
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
// table, with its eviction), filling at the budget's rate up to 10 × that. An operation is
// debited what it consumed once it ran (ReturnConsumedCapacity; writes count their units too),
// which may take the bucket below zero; an operation that finds its principal's bucket at or
// below zero is refused before it runs.
type capacityBudget struct{ *bucketTable }

func newCapacityBudget(rcu float64, now func() time.Time) *capacityBudget {
	burst := max(1, int(math.Ceil(10*rcu*budgetUnitsPerRCU)))
	return &capacityBudget{newBucketTable(rate.Limit(rcu*budgetUnitsPerRCU), burst, now)}
}

// check reports whether key's bucket holds capacity, or else how long until it does.
func (c *capacityBudget) check(key string) (ok bool, wait time.Duration) {
	c.use(key, func(now time.Time, lim *rate.Limiter) {
		if t := lim.TokensAt(now); t <= 0 {
			wait = time.Duration(-t/float64(c.limit)*float64(time.Second)) + time.Nanosecond
		}
	})
	return wait == 0, wait
}

// debit takes rcu capacity units from key's bucket, below zero if need be, and returns what is
// left (RCU).
func (c *capacityBudget) debit(key string, rcu float64) (left float64) {
	n := int(math.Ceil(rcu*budgetUnitsPerRCU - 1e-9))
	c.use(key, func(now time.Time, lim *rate.Limiter) {
		for n > 0 {
			k := min(n, c.burst) // a reservation may take at most a burst at once
			lim.ReserveN(now, k)
			n -= k
		}
		left = lim.TokensAt(now) / budgetUnitsPerRCU
	})
	return left
}

// requestBudget is one request's account with its principal's budget.
type requestBudget struct {
	store   budgetStore
	key     string
	mu      sync.Mutex
	held    reservation // what the request reserved, until its first settle
	debited float64     // RCU debited so far
	settled bool        // left is what the last settle returned
	left    float64
}

// settle debits what the request consumed since the last settle (total is all it consumed so
// far: a response is settled when it is written, the request when it ends) and returns what is
// left of the budget (RCU). With nothing new to square it answers what the last settle left,
// without asking the store (in a fleet, a round trip to Redis).
func (b *requestBudget) settle(total float64) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.settled && total <= b.debited {
		return b.left
	}
	b.left = b.store.settle(context.Background(), b.key, b.held, total-b.debited)
	b.held = reservation{shared: b.held.shared}
	b.debited = max(b.debited, total)
	b.settled = true
	return b.left
}

// withCapacityBudget refuses a request whose principal's capacity budget is spent: 429 with
// Retry-After (the seconds until the bucket is positive again), RATE_LIMITED and
// extensions.limit "capacity", before any DynamoDB call; an explain is refused the same way, as it
// answers what running the operation would do. Every request is debited what it consumed
// (requestBudget, settled by the cost extension as the answer is written and here when the
// request ends). Zero CapacityBudgetRCU turns it off. It runs after the body is read.
func withCapacityBudget(cfg Config, next http.Handler) http.Handler {
	if cfg.CapacityBudgetRCU <= 0 {
		return next
	}
	budget := newBudgetStore(cfg, newCapacityBudget(cfg.CapacityBudgetRCU, time.Now))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := requestInfoFrom(r.Context())
		if r.Method == http.MethodOptions || ri == nil {
			next.ServeHTTP(w, r)
			return
		}
		key, ok := principalKey(r.Context())
		if !ok {
			key = limiterKey(r, cfg.TrustedProxies)
		}
		ok, wait, held := budget.reserve(r.Context(), key, 0)
		ri.budget = &requestBudget{store: budget, key: key, held: held}
		if !ok {
			if cfg.OnRateLimited != nil {
				cfg.OnRateLimited(RefusedCapacity)
			}
			secs := retryAfterSeconds(wait)
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			writeLimitError(w, r, http.StatusTooManyRequests, string(apperr.CodeRateLimited), RefusedCapacity,
				"This client has used its DynamoDB capacity budget; retry after "+strconv.Itoa(secs)+" s.")
			return
		}
		next.ServeHTTP(w, r)
		ri.budget.settle(ri.meter.Usage().TotalCapacity)
	})
}
