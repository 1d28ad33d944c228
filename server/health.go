package server

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"singletable/repository/store"
)

// readyTTL is how long one readiness check answers for: /readyz needs no token, so without it
// every anonymous probe would cost a DescribeTable call, and a flood of them could get the
// instance's own calls throttled and every instance reported not ready.
const readyTTL = time.Second

// readiness answers 200 when the table can be described and is active with all its indexes,
// 503 otherwise. The reason goes to the log, not to the caller. Once shuttingDown reports true
// (the process got SIGTERM and drains), it answers 503 at once without asking DynamoDB, so that
// load balancers stop sending traffic while in-flight requests finish.
func readiness(repo *store.Store, log *slog.Logger, shuttingDown func() bool) http.Handler {
	check := &readyCheck{repo: repo, log: log}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if shuttingDown != nil && shuttingDown() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("shutting down\n"))
			return
		}
		if err := check.ready(r.Context()); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
}

// readyCheck runs at most one DescribeTable per readyTTL: probes that arrive while a check runs
// wait for it, and probes within readyTTL of its end get its answer.
type readyCheck struct {
	repo *store.Store
	log  *slog.Logger

	mu  sync.Mutex
	at  time.Time
	err error
}

func (c *readyCheck) ready(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < readyTTL {
		return c.err
	}
	// The answer is shared, so one probe's cancelled request must not become everyone's.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
	defer cancel()
	c.err = c.repo.Ready(ctx)
	c.at = time.Now()
	if c.err != nil {
		c.log.WarnContext(ctx, "not ready", "error", c.err.Error())
	}
	return c.err
}
