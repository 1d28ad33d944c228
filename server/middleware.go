package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"singletable/repository"
)

// requestInfo is what the GraphQL layer tells the request log about a request.
type requestInfo struct {
	id    string
	start time.Time
	meter *repository.Meter
	// stream marks a WebSocket or Server-Sent Events request (isStream), which serves
	// subscriptions only and has no time limit of its own.
	stream bool
	// budget is the principal's capacity budget the request's cost is debited from (nil: off).
	budget *requestBudget
	// op is the operation's name, once the GraphQL layer knows it (read by the request log and
	// the subscriptions' events, from other goroutines).
	op atomic.Pointer[string]
	// explained: the request asked for its plan, and its answer has no data entry.
	explained atomic.Bool
}

func (ri *requestInfo) markExplained()    { ri.explained.Store(true) }
func (ri *requestInfo) isExplained() bool { return ri.explained.Load() }

func (ri *requestInfo) setOperation(name string) { ri.op.Store(&name) }

// operation is the operation's name, "" until setOperation.
func (ri *requestInfo) operation() string {
	if op := ri.op.Load(); op != nil {
		return *op
	}
	return ""
}

type requestInfoKey struct{}

func requestInfoFrom(ctx context.Context) *requestInfo {
	ri, _ := ctx.Value(requestInfoKey{}).(*requestInfo)
	return ri
}

// withRequestContext gives every request an id (X-Request-Id, echoed back), a DynamoDB meter, a
// time limit, and one JSON log line when it ends: method, path, status, duration, operation name
// (from the document when the client sends none), trace id (when the request is traced)
// and the DynamoDB calls it made. A stream (isStream) lives as long as its subscriptions: its
// time limit and meter are each event's (subscriptionEvents), and its log line comes when it ends.
func withRequestContext(cfg Config, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if id == "" || len(id) > 64 {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		ctx, meter := repository.WithMeter(r.Context())
		ri := &requestInfo{id: id, start: start, meter: meter, stream: isStream(r)}
		ctx = context.WithValue(ctx, requestInfoKey{}, ri)
		if !ri.stream {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, cfg.OperationTimeout)
			defer cancel()
		}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r.WithContext(ctx))
		if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" {
			return
		}
		u := meter.Usage()
		attrs := []slog.Attr{
			slog.String("requestId", id),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", sw.status),
			slog.Float64("durationMs", float64(time.Since(start).Microseconds())/1000),
			slog.Int("dynamodbCalls", u.TotalCalls),
			slog.Any("dynamodbCallsByOperation", u.Calls),
			slog.Float64("dynamodbCapacityUnits", u.TotalCapacity),
			// Wall time with at least one DynamoDB call in flight: durationMs minus this is the
			// time the server spent on its own (cmd/bench reports it).
			slog.Float64("dynamodbMs", float64(u.DynamoDBTime.Microseconds())/1000),
			slog.Int("dynamodbRounds", u.Rounds),
		}
		if op := ri.operation(); op != "" {
			attrs = append(attrs, slog.String("operation", op))
		}
		if sc := trace.SpanContextFromContext(r.Context()); sc.IsValid() {
			attrs = append(attrs, slog.String("traceId", sc.TraceID().String()))
		}
		cfg.Logger.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
	})
}

func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush implements http.Flusher, which Server-Sent Events need (gqlgen asserts it).
func (w *statusWriter) Flush() {
	w.wrote = true
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// withCORS answers browser preflights and sets Access-Control-Allow-Origin for allowed origins.
func withCORS(origins []string, next http.Handler) http.Handler {
	if len(origins) == 0 {
		return next
	}
	any := slices.Contains(origins, "*")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && (any || slices.Contains(origins, origin)) {
			h := w.Header()
			if any {
				h.Set("Access-Control-Allow-Origin", "*")
			} else {
				h.Set("Access-Control-Allow-Origin", origin)
				h.Add("Vary", "Origin")
			}
			h.Set("Access-Control-Expose-Headers", exposedLimitHeaders)
			if r.Method == http.MethodOptions {
				h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
				reqHeaders := r.Header.Get("Access-Control-Request-Headers")
				if reqHeaders == "" {
					reqHeaders = "Content-Type"
				}
				h.Set("Access-Control-Allow-Headers", strings.ToLower(reqHeaders))
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
