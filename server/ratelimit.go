package server

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"singletable/apperr"

	"golang.org/x/time/rate"
)

// DefaultMaxPrincipals bounds the rate limiter's table of principals (see rateLimiter.sweep).
const DefaultMaxPrincipals = 100_000

// rateLimiter keeps one token bucket per principal (golang.org/x/time/rate). A principal idle
// for longer than its bucket takes to refill is forgotten: its bucket is full again, so dropping
// it loses nothing, and the table holds only principals seen recently.
type rateLimiter struct {
	rps       rate.Limit
	burst     int
	idle      time.Duration
	max       int
	now       func() time.Time
	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newRateLimiter(rps float64, burst int, now func() time.Time) *rateLimiter {
	if burst < 1 {
		burst = max(1, int(math.Ceil(2*rps)))
	}
	refill := time.Duration(float64(burst) / rps * float64(time.Second))
	return &rateLimiter{
		rps: rate.Limit(rps), burst: burst, idle: max(refill, time.Minute), max: DefaultMaxPrincipals,
		now: now, buckets: map[string]*bucket{}, lastSweep: now(),
	}
}

// allow takes a token from key's bucket, or says how long until one is available.
func (l *rateLimiter) allow(key string) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) >= l.idle/2 || len(l.buckets) >= l.max {
		l.sweep(now)
	}
	b := l.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.rps, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	res := b.lim.ReserveN(now, 1)
	if delay := res.DelayFrom(now); delay > 0 {
		res.CancelAt(now)
		return false, delay
	}
	return true, 0
}

// sweep forgets the principals idle for longer than a refill. If the table is still full (a
// flood of distinct addresses inside one idle period), it drops arbitrary entries down to 90%
// of its bound: those clients start over with a full bucket, and memory stays bounded.
func (l *rateLimiter) sweep(now time.Time) {
	l.lastSweep = now
	for k, b := range l.buckets {
		if now.Sub(b.seen) > l.idle {
			delete(l.buckets, k)
		}
	}
	for k := range l.buckets {
		if len(l.buckets) < l.max*9/10 {
			break
		}
		delete(l.buckets, k)
	}
}

func (l *rateLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// withRateLimit refuses a request whose principal (limiterKey) has no token left: 429 with
// Retry-After and RATE_LIMITED, before the body is read and without a DynamoDB call. A zero
// RateLimitRPS turns it off. CORS preflights pass untouched.
func withRateLimit(cfg Config, next http.Handler) http.Handler {
	if cfg.RateLimitRPS <= 0 {
		return next
	}
	limiter := newRateLimiter(cfg.RateLimitRPS, cfg.RateLimitBurst, time.Now)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodOptions {
			key, ok := principalKey(r.Context())
			if !ok {
				key = limiterKey(r, cfg.TrustedProxies)
			}
			if ok, wait := limiter.allow(key); !ok {
				if cfg.OnRateLimited != nil {
					cfg.OnRateLimited()
				}
				secs := retryAfterSeconds(wait)
				w.Header().Set("Retry-After", strconv.Itoa(secs))
				writeCodedError(w, r, http.StatusTooManyRequests, string(apperr.CodeRateLimited),
					"Too many requests from this client; retry after "+strconv.Itoa(secs)+" s.")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// withConcurrencyCap lets at most MaxConcurrentOperations requests run next at once; past it
// the answer is 503 with Retry-After and UNAVAILABLE, at once rather than queued (a queue would
// only add latency to an overloaded instance; the client or the load balancer retries). It
// wraps the operation only, after the body was read, so that slow uploads hold no slot. Zero
// turns it off. A stream (WebSocket, Server-Sent Events) serves subscriptions only, for as long
// as they last: it takes no slot, and the hub's MaxSubscriptions caps them instead.
func withConcurrencyCap(cfg Config, next http.Handler) http.Handler {
	if cfg.MaxConcurrentOperations <= 0 {
		return next
	}
	slots := make(chan struct{}, cfg.MaxConcurrentOperations)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions || isStream(r) {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		default:
			if cfg.OnOverCapacity != nil {
				cfg.OnOverCapacity()
			}
			w.Header().Set("Retry-After", "1")
			writeCodedError(w, r, http.StatusServiceUnavailable, string(apperr.CodeUnavailable),
				"The server is at its limit of concurrent operations; retry in a moment.")
		}
	})
}

// retryAfterSeconds rounds a wait up to whole seconds, at least 1 (Retry-After has no fractions).
func retryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
