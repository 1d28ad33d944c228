package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"singletable/repository"
)

// readiness answers 200 when the table can be described and is active with all its indexes,
// 503 otherwise. The reason goes to the log, not to the caller. Once shuttingDown reports true
// (the process got SIGTERM and drains), it answers 503 at once without asking DynamoDB, so that
// load balancers stop sending traffic while in-flight requests finish.
func readiness(repo *repository.Repo, log *slog.Logger, shuttingDown func() bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if shuttingDown != nil && shuttingDown() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("shutting down\n"))
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		if err := repo.Ready(ctx); err != nil {
			log.WarnContext(r.Context(), "not ready", "error", err.Error())
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
}
