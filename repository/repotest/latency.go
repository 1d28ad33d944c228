package repotest

import (
	"math/rand/v2"
	"net/http"
	"time"

	"singletable/repository"
)

// Latency is a transport wrapper (repository.Config.WrapTransport) that delays every DynamoDB
// request by d, plus a random extra in [0, jitter). DynamoDB Local answers in well under a
// millisecond, far closer than a real AWS region: tests and the benchmark add latency to model the
// network distance, which makes calls that wait for one another visible, and jitter so that calls
// started together return apart (what batching across sibling lists must survive).
func Latency(d, jitter time.Duration) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			wait := d
			if jitter > 0 {
				wait += rand.N(jitter)
			}
			if wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-r.Context().Done():
					t.Stop()
					return nil, r.Context().Err()
				case <-t.C:
				}
			}
			return next.RoundTrip(r)
		})
	}
}

// Paced is a transport wrapper that makes every DynamoDB request take d, at least: DynamoDB
// Local's answer is held back until d has passed since the request started. Calls started
// together then end together, whatever DynamoDB Local's own time for each (as long as it stays
// under d), so that the rounds a meter counts (calls one after another) are the rounds of calls
// that wait for one another, not those of a fast call followed by one that merely started late.
func Paced(d time.Duration) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			start := time.Now()
			resp, err := next.RoundTrip(r)
			if rest := d - time.Since(start); rest > 0 && err == nil {
				t := time.NewTimer(rest)
				select {
				case <-r.Context().Done():
					t.Stop()
				case <-t.C:
				}
			}
			return resp, err
		})
	}
}

// WithLatency is NewRepo's option that adds Latency(d, jitter) outside any transport wrapper the
// configuration has.
func WithLatency(d, jitter time.Duration) func(*repository.Config) {
	return func(c *repository.Config) { c.WrapTransport = Chain(Latency(d, jitter), c.WrapTransport) }
}

// WithPace is NewRepo's option that adds Paced(d) outside any transport wrapper the
// configuration has.
func WithPace(d time.Duration) func(*repository.Config) {
	return func(c *repository.Config) { c.WrapTransport = Chain(Paced(d), c.WrapTransport) }
}

// Chain is the transport wrapper of wraps applied in turn, the first outermost; nil ones are
// skipped.
func Chain(wraps ...func(http.RoundTripper) http.RoundTripper) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		for i := len(wraps) - 1; i >= 0; i-- {
			if wraps[i] != nil {
				next = wraps[i](next)
			}
		}
		return next
	}
}
