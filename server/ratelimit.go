package server

import (
	"context"
	"math"
	"net/http"
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

// withAdmission is the front door's admission of an HTTP request (frontDoor.admit), before its
// body is read and without a DynamoDB call: its principal (limiterKey) takes a token from its
// request bucket and must have capacity left in its budget, or the request is refused with 429,
// Retry-After and RATE_LIMITED (extensions.limit "rate" or "capacity"). Every answer, refusals
// included, carries the X-RateLimit-* and X-Capacity-* headers of the principal's buckets. The
// request then keeps its account with the budget (requestBudget: each operation reserves its
// plan's price, operationPlan), settled with what it consumed as its answer is written (the cost
// extension) and here when it ends. The request is marked admitted, so that the front door's
// gqlgen extension does not decide on it again; a WebSocket's upgrade is not (each of its
// subscribes is admitted by the extension, as its principal's, from its connection_init). With
// neither a rate limit nor a budget configured it does nothing. CORS preflights pass untouched.
func withAdmission(cfg Config, next http.Handler) http.Handler {
	door := newFrontDoor(cfg)
	if door.allow == nil && door.budget == nil {
		return next
	}
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
		account, refused := door.admit(r.Context(), key)
		if cfg.limiter != nil {
			setRateHeaders(w.Header(), cfg.limiter, key)
		}
		if cfg.budget != nil {
			setCapacityHeaders(w.Header(), cfg.store.state(r.Context(), key), cfg.budget)
		}
		if refused != nil {
			refused.write(w, r)
			return
		}
		if !isWebSocketUpgrade(r) {
			r = r.WithContext(context.WithValue(r.Context(), admittedKey{}, true))
		}
		ri.budget = account
		next.ServeHTTP(w, r)
		if account != nil {
			account.settle(ri.meter.Usage().TotalCapacity, r.Context().Err() != nil)
		}
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
