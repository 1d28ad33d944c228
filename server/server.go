// Package server is the HTTP face of the API: the GraphQL endpoint with its hardening (transports,
// limits, error presenter, cost extension), the GraphiQL playground, health probes and the
// per-request middleware (request id, DynamoDB meter, loaders, logging, CORS).
package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"go.opentelemetry.io/otel/trace"

	"singletable/auth"
	"singletable/changefeed"
	"singletable/loaders"
	"singletable/planner"
	"singletable/repository/store"
	"singletable/server/playground"
	"singletable/telemetry"
)

// Config configures the HTTP handler.
type Config struct {
	// Introspection enables schema introspection (on for local use; consider turning it off in
	// production if the schema is not public).
	Introspection bool
	// ComplexityLimit caps an operation's complexity, the price of its plan: 50 per call that
	// reads a page, ½ per other call (DefaultComplexityLimit when zero; see operationPlan).
	ComplexityLimit int
	// ParserTokenLimit caps the tokens of a query document (DefaultParserTokenLimit when zero).
	ParserTokenLimit int
	// Limits bound a document's bytes, depth, fields, aliases and repeated fields before it is
	// validated (each Default* when zero).
	Limits Limits
	// QueryCacheBytes and APQCacheBytes bound the parsed-query and persisted-query caches in
	// bytes (DefaultQueryCacheBytes and DefaultAPQCacheBytes when zero).
	QueryCacheBytes int
	APQCacheBytes   int
	// RateLimitRPS is the sustained rate of /query requests one principal may make; zero turns
	// the limiter off (cmd/server defaults to 50). RateLimitBurst is its bucket size (2×RPS when
	// zero).
	RateLimitRPS   float64
	RateLimitBurst int
	// TrustedProxies are the peers whose X-Forwarded-For names the client (see limiterKey).
	TrustedProxies []netip.Prefix
	// MaxConcurrentOperations caps the /query requests served at once; zero means no cap
	// (cmd/server defaults to DefaultMaxConcurrentOperations).
	MaxConcurrentOperations int
	// CapacityBudgetRCU is the DynamoDB capacity one principal may consume, in read capacity
	// units per second, with a burst of 10 × that; zero turns the budget off (cmd/server
	// defaults to DefaultCapacityBudgetRCU). See withAdmission and requestBudget.
	CapacityBudgetRCU float64
	// OnRateLimited and OnOverCapacity, when set, are called once per request refused with 429
	// (reason RefusedRate: the rate limiter; RefusedCapacity: the capacity budget) or by the
	// concurrency cap (503): hooks for metrics.
	OnRateLimited  func(reason string)
	OnOverCapacity func()
	// OperationTimeout bounds one request's work, DynamoDB calls included (30 s when zero).
	OperationTimeout time.Duration
	// CORSOrigins lists the browser origins allowed to call /query ("*" for any); empty means
	// same-origin only.
	CORSOrigins []string
	// Loaders configures the per-request dataloaders.
	Loaders loaders.Options
	// Planner plans what each operation reads ahead (planner.TablePlanner when nil).
	Planner planner.Planner
	// Logger receives one line per request and every internal error (slog.Default when nil).
	Logger *slog.Logger
	// Auth verifies every /query request's bearer token (package auth). Nil refuses every
	// request: auth.Disabled() is the explicit way to run without tokens.
	Auth auth.Authenticator
	// DisablePlayground removes the GraphiQL page and its files (PLAYGROUND=false).
	DisablePlayground bool
	// ShuttingDown, when set and returning true, makes /readyz answer 503 at once: the process
	// is draining in-flight requests before it exits.
	ShuttingDown func() bool
	// PlaygroundHeaders prefill the playground's headers editor, e.g. an Authorization header
	// with a development token.
	PlaygroundHeaders map[string]string
	// LoopbackHostOnly refuses every request whose Host header is not a loopback name or address
	// (localhost, *.localhost, 127.0.0.0/8, [::1], any port) with 421 Misdirected Request, on
	// every route: the defence against DNS rebinding of a server meant for this machine only.
	// cmd/server sets it whenever development tokens are on, since the playground page then
	// carries the admin's token; it is never inferred from PlaygroundHeaders.
	LoopbackHostOnly bool
	// Metrics receives the operations' durations and outcomes and the loaders' batch sizes (none
	// when nil). The DynamoDB calls reach it through repository.Config.Observer.
	Metrics *telemetry.Metrics
	// TracerProvider receives the spans of requests, operations, resolvers and loader batches
	// (the global provider when nil).
	TracerProvider trace.TracerProvider
	// TrustedDocuments is the manifest of trusted documents (TRUSTED_DOCUMENTS; nil for none), and
	// TrustedDocumentsMode what happens to a document outside it (TrustedOff when empty). See
	// trusted.go. OnUntrustedDocument, when set, counts each document outside the manifest by
	// outcome (UntrustedServed, UntrustedBypassed, UntrustedRefused).
	TrustedDocuments     *TrustedDocuments
	TrustedDocumentsMode TrustedDocumentsMode
	OnUntrustedDocument  func(outcome string)
	// SharedLimits and SharedPersistedQueries, when set, hold the rate limiter's and the capacity
	// budget's buckets and the persisted queries for a whole fleet of instances (package fleet,
	// REDIS_URL); nil keeps them in the instance. While a shared store fails, the instance answers
	// from its own state, logs it and calls OnSharedFallback (with SharedRate, SharedCapacity or
	// SharedPersisted) for every request so answered.
	SharedLimits           SharedLimits
	SharedPersistedQueries SharedPersistedQueries
	OnSharedFallback       func(store string)
	// Hub fans the table's stream out to subscriptions (WebSocket and Server-Sent Events on
	// /query); nil answers every subscription with UNAVAILABLE (AWS Lambda). Its owner starts it
	// and, on shutdown, closes it: open subscriptions complete, then their sockets close.
	Hub *changefeed.Hub

	// limiter and budget are the instance's request rate limiter and capacity budget New makes
	// (nil: off); allow and store decide with them, or with the fleet's SharedLimits when set.
	// All are shared by the HTTP middleware and the WebSocket guard.
	limiter *rateLimiter
	budget  *capacityBudget
	allow   func(ctx context.Context, key string) (bool, time.Duration)
	store   budgetStore
}

// Defaults for Config's zero values.
const (
	DefaultComplexityLimit  = 20000
	DefaultParserTokenLimit = 10000
	maxRequestBody          = 1 << 20
	// DefaultMaxConcurrentOperations is the concurrency cap cmd/server applies: an operation
	// may have dozens of DynamoDB calls in flight and the SDK keeps 256 connections, so 64
	// operations at once keep every call within the connection pool, and memory bounded, on a
	// two-core instance.
	DefaultMaxConcurrentOperations = 64
)

// New returns the HTTP handler of the whole API:
//
//	/         GraphiQL playground (unless DisablePlayground), its files under /playground/
//	/query    GraphQL (POST; GET for queries only), with a bearer token (package auth); and
//	          subscriptions over WebSocket (graphql-transport-ws) and Server-Sent Events
//	/healthz  liveness: the process serves HTTP
//	/readyz   readiness: the table is reachable and active (DescribeTable)
//
// With LoopbackHostOnly, each of them answers only requests addressed to a loopback name.
func New(repo *store.Store, cfg Config) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.OperationTimeout <= 0 {
		cfg.OperationTimeout = 30 * time.Second
	}
	cfg = cfg.observed()
	if cfg.RateLimitRPS > 0 {
		cfg.limiter = newRateLimiter(cfg.RateLimitRPS, cfg.RateLimitBurst, time.Now)
		cfg.allow = rateDecider(cfg, cfg.limiter)
	}
	if cfg.CapacityBudgetRCU > 0 {
		cfg.budget = newCapacityBudget(cfg.CapacityBudgetRCU, time.Now)
		cfg.store = newBudgetStore(cfg, cfg.budget)
	}
	mux := http.NewServeMux()
	gql := newGraphQL(repo, cfg)
	// The /query chain, outermost first. Authentication comes before the principal's key, so
	// that the front door's admission (rate limit, capacity budget) and the persisted-query cache
	// key on the token's subject.
	query := withAPIHeaders(withCORS(cfg.CORSOrigins, withAuthentication(cfg.Auth, withPrincipalKey(cfg.TrustedProxies, withErrorEnvelope(
		withAdmission(cfg, withRequestBody(withTrustedDocuments(cfg, withConcurrencyCap(cfg, loaders.Middleware(repo, cfg.Loaders)(withStreamDeadlines(cfg.CORSOrigins, gql)))))))))))
	mux.Handle("/query", query)
	if !cfg.DisablePlayground {
		page, err := playground.Handler(playground.Options{Title: "singletable GraphQL", Endpoint: "/query", Headers: cfg.PlaygroundHeaders})
		if err != nil {
			cfg.Logger.Error("playground disabled: its embedded files are unusable", "error", err.Error())
		} else {
			mux.Handle("GET /{$}", page)
			mux.Handle("GET "+playground.AssetPrefix, page)
		}
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.Handle("GET /readyz", readiness(repo, cfg.Logger, cfg.ShuttingDown))
	return withSecurityHeaders(withTracing(cfg, withRequestContext(cfg, withLoopbackHost(cfg.LoopbackHostOnly, mux))))
}
