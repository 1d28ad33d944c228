package server

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultMaxPrincipals bounds each table of per-principal buckets (see bucketTable.sweep).
const DefaultMaxPrincipals = 100_000

// bucketTable keeps one token bucket per principal (golang.org/x/time/rate): the one mechanism
// behind the rate limiter and the capacity budget. A principal is forgotten once its bucket is
// full again and it has been idle for idle: dropping it then loses nothing (a new bucket starts
// full), so the table holds only principals seen recently or still in debt, and a hard bound
// caps it against a flood of distinct principals.
type bucketTable struct {
	limit     rate.Limit
	burst     int
	idle      time.Duration
	max       int
	now       func() time.Time
	mu        sync.Mutex
	entries   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim *rate.Limiter
	// keep is when the entry may be dropped: its bucket is full again by then and it was idle.
	keep time.Time
}

// newBucketTable is a table of buckets filling at limit tokens per second up to burst. Idle
// principals are forgotten after the time a bucket takes to fill from empty, at least a minute.
func newBucketTable(limit rate.Limit, burst int, now func() time.Time) *bucketTable {
	refill := time.Duration(float64(burst) / float64(limit) * float64(time.Second))
	return &bucketTable{limit: limit, burst: burst, idle: max(refill, time.Minute), max: DefaultMaxPrincipals,
		now: now, entries: map[string]*bucket{}, lastSweep: now()}
}

// use runs f on key's bucket (a full one for a principal not in the table) under the table's
// lock, and keeps the entry until its bucket is full again and it was idle for idle.
func (t *bucketTable) use(key string, f func(now time.Time, lim *rate.Limiter)) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if now.Sub(t.lastSweep) >= t.idle/2 || len(t.entries) >= t.max {
		t.sweep(now)
	}
	b := t.entries[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(t.limit, t.burst)}
		t.entries[key] = b
	}
	f(now, b.lim)
	b.keep = now.Add(max(t.idle, t.untilFull(now, b.lim)))
}

// untilFull is how long lim takes to fill up from now.
func (t *bucketTable) untilFull(now time.Time, lim *rate.Limiter) time.Duration {
	missing := float64(t.burst) - lim.TokensAt(now)
	if missing <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(missing / float64(t.limit) * float64(time.Second)))
}

// sweep forgets the principals whose buckets are full again and idle. If the table is still
// full (a flood of distinct principals inside one idle period), it drops arbitrary entries down
// to 90% of its bound: those clients start over with a full bucket, and memory stays bounded.
func (t *bucketTable) sweep(now time.Time) {
	t.lastSweep = now
	for k, b := range t.entries {
		if now.After(b.keep) {
			delete(t.entries, k)
		}
	}
	for k := range t.entries {
		if len(t.entries) < t.max*9/10 {
			break
		}
		delete(t.entries, k)
	}
}
