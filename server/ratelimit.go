package server

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"time"

	"singletable/apperr"

	"golang.org/x/time/rate"
)

// rateLimiter keeps one token bucket of requests per principal (bucketTable).
type rateLimiter struct{ *bucketTable }

func newRateLimiter(rps float64, burst int, now func() time.Time) *rateLimiter {
	if burst < 1 {
		burst = max(1, int(math.Ceil(2*rps)))
	}
	return &rateLimiter{newBucketTable(rate.Limit(rps), burst, now)}
}

// allow takes a token from key's bucket, or says how long until one is available.
func (l *rateLimiter) allow(key string) (ok bool, wait time.Duration) {
	l.use(key, func(now time.Time, lim *rate.Limiter) {
		res := lim.ReserveN(now, 1)
		if wait = res.DelayFrom(now); wait > 0 {
			res.CancelAt(now)
		}
	})
	return wait <= 0, wait
}

// withRateLimit refuses a request whose principal (limiterKey) has no token left: 429 with
// Retry-After and RATE_LIMITED, before the body is read and without a DynamoDB call. A zero
// RateLimitRPS turns it off. CORS preflights pass untouched.
func withRateLimit(cfg Config, next http.Handler) http.Handler {
	limiter := cfg.limiter
	if limiter == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodOptions {
			key, ok := principalKey(r.Context())
			if !ok {
				key = limiterKey(r, cfg.TrustedProxies)
			}
			ok, wait := cfg.allow(r.Context(), key)
			setRateHeaders(w.Header(), limiter, key)
			if cfg.budget != nil {
				// Here too, so that the answers refused before the budget's own middleware
				// (this 429, a body or trusted-document refusal) carry both sets of headers.
				setCapacityHeaders(w.Header(), cfg.store.state(r.Context(), key), cfg.budget)
			}
			if !ok {
				if cfg.OnRateLimited != nil {
					cfg.OnRateLimited(RefusedRate)
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
// turns it off. A stream (WebSocket, Server-Sent Events) of subscriptions lasts as long as they
// do: it takes no slot, and the hub's MaxSubscriptions caps them instead. But a query over
// Server-Sent Events (@defer, delivered in events) is an operation like any other: it takes a
// slot once it turns out to be one (streamSlot, taken by deferredExecutor) and holds it until
// its last payload is written.
func withConcurrencyCap(cfg Config, next http.Handler) http.Handler {
	if cfg.MaxConcurrentOperations <= 0 {
		return next
	}
	slots := make(chan struct{}, cfg.MaxConcurrentOperations)
	over := func(h http.Header) {
		if cfg.OnOverCapacity != nil {
			cfg.OnOverCapacity()
		}
		h.Set("Retry-After", "1")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodOptions || isWebSocketUpgrade(r):
			next.ServeHTTP(w, r)
			return
		case isStream(r):
			s := &streamSlot{slots: slots, over: func() { over(w.Header()) }}
			defer s.release()
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), streamSlotKey{}, s)))
			return
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		default:
			over(w.Header())
			writeCodedError(w, r, http.StatusServiceUnavailable, string(apperr.CodeUnavailable), overCapacityMessage)
		}
	})
}

const overCapacityMessage = "The server is at its limit of concurrent operations; retry in a moment."

// streamSlot is a Server-Sent Events request's slot of the concurrency cap, taken when its
// operation is a query (deferredExecutor), released when the request ends.
type streamSlot struct {
	slots chan struct{}
	over  func()
	held  bool
}

type streamSlotKey struct{}

// takeStreamSlot takes ctx's request a slot of the concurrency cap, if it is a stream's and the
// cap is on; false when every slot is taken.
func takeStreamSlot(ctx context.Context) bool {
	s, _ := ctx.Value(streamSlotKey{}).(*streamSlot)
	if s == nil || s.held {
		return true
	}
	select {
	case s.slots <- struct{}{}:
		s.held = true
		return true
	default:
		s.over()
		return false
	}
}

func (s *streamSlot) release() {
	if s.held {
		<-s.slots
	}
}

// retryAfterSeconds rounds a wait up to whole seconds, at least 1 (Retry-After has no fractions).
func retryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
