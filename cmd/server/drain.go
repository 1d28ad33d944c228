package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// errForced is run's result when a second signal cut the drain short.
var errForced = errors.New("stopped by a second signal before in-flight requests finished")

type forceKey struct{}

// shutdownSignals turns SIGINT/SIGTERM into the two stages of a shutdown: the first signal
// cancels the returned context (run stops taking traffic and drains), the second cancels the
// force context stored in it (run exits at once, cutting what is still in flight). The force
// context travels inside the first so that run keeps the signature tests call it with.
func shutdownSignals() (ctx context.Context, stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	force, cancelForce := context.WithCancel(context.Background())
	drain, cancelDrain := context.WithCancel(withForce(context.Background(), force))
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancelDrain()
		case <-done:
			return
		}
		select {
		case <-sigs:
			cancelForce()
		case <-done:
		}
	}()
	return drain, func() {
		signal.Stop(sigs)
		close(done)
		cancelDrain()
		cancelForce()
	}
}

// withForce returns a copy of ctx whose cancellation run treats as a second signal.
func withForce(ctx, force context.Context) context.Context {
	return context.WithValue(ctx, forceKey{}, force)
}

// forceDone is the channel of the force context in ctx, or nil (never ready) when there is none.
func forceDone(ctx context.Context) <-chan struct{} {
	if f, ok := ctx.Value(forceKey{}).(context.Context); ok {
		return f.Done()
	}
	return nil
}

// drainer counts the requests in flight and holds the draining flag /readyz reads.
type drainer struct {
	inFlight atomic.Int64
	draining atomic.Bool
}

// wrap counts every request but the health probes, which must not hold a shutdown up.
func (d *drainer) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" && r.URL.Path != "/readyz" {
			d.inFlight.Add(1)
			defer d.inFlight.Add(-1)
		}
		next.ServeHTTP(w, r)
	})
}

// wait keeps the listener open, with /readyz at 503, until no request is in flight and at least
// minDelay has passed; it returns early when ctx ends (the shutdown timeout) or on force.
func (d *drainer) wait(ctx context.Context, force <-chan struct{}, minDelay time.Duration) error {
	start := time.Now()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if d.inFlight.Load() == 0 && time.Since(start) >= minDelay {
			return nil
		}
		select {
		case <-force:
			return errForced
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}
