package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"singletable/repository"
)

// readiness answers 200 when the table can be described and is active with all its indexes,
// 503 otherwise. The reason goes to the log, not to the caller.
func readiness(repo *repository.Repo, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := repo.Ready(ctx); err != nil {
			log.WarnContext(r.Context(), "not ready", "error", err.Error())
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
}
