// Package server is the HTTP face of the API: the GraphQL endpoint with its hardening (transports,
// limits, error presenter, cost extension), the GraphiQL playground, health probes and the
// per-request middleware (request id, DynamoDB meter, loaders, logging, CORS).
package server

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql/playground"
	"go.opentelemetry.io/otel/trace"

	"singletable/loaders"
	"singletable/repository"
	"singletable/telemetry"
)

// Config configures the HTTP handler.
type Config struct {
	// Introspection enables schema introspection (on for local use; consider turning it off in
	// production if the schema is not public).
	Introspection bool
	// ComplexityLimit caps an operation's complexity; list fields count `first` times their
	// children (DefaultComplexityLimit when zero).
	ComplexityLimit int
	// ParserTokenLimit caps the tokens of a query document (DefaultParserTokenLimit when zero).
	ParserTokenLimit int
	// OperationTimeout bounds one request's work, DynamoDB calls included (30 s when zero).
	OperationTimeout time.Duration
	// CORSOrigins lists the browser origins allowed to call /query ("*" for any); empty means
	// same-origin only.
	CORSOrigins []string
	// Loaders configures the per-request dataloaders.
	Loaders loaders.Options
	// Logger receives one line per request and every internal error (slog.Default when nil).
	Logger *slog.Logger
	// Metrics receives the operations' durations and outcomes and the loaders' batch sizes (none
	// when nil). The DynamoDB calls reach it through repository.Config.Observer.
	Metrics *telemetry.Metrics
	// TracerProvider receives the spans of requests, operations, resolvers and loader batches
	// (the global provider when nil).
	TracerProvider trace.TracerProvider
}

// Defaults for Config's zero values.
const (
	DefaultComplexityLimit  = 20000
	DefaultParserTokenLimit = 10000
	maxRequestBody          = 1 << 20
)

// New returns the HTTP handler of the whole API:
//
//	/         GraphiQL playground
//	/query    GraphQL (POST; GET for queries only)
//	/healthz  liveness: the process serves HTTP
//	/readyz   readiness: the table is reachable and active (DescribeTable)
func New(repo *repository.Repo, cfg Config) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.OperationTimeout <= 0 {
		cfg.OperationTimeout = 30 * time.Second
	}
	cfg = cfg.observed()
	mux := http.NewServeMux()
	gql := newGraphQL(repo, cfg)
	query := withCORS(cfg.CORSOrigins, withErrorEnvelope(http.MaxBytesHandler(loaders.Middleware(repo, cfg.Loaders)(gql), maxRequestBody)))
	mux.Handle("/query", query)
	mux.Handle("GET /{$}", playground.Handler("singletable GraphQL", "/query"))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.Handle("GET /readyz", readiness(repo, cfg.Logger))
	return withTracing(cfg, withRequestContext(cfg, mux))
}
