package server

import (
	"context"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"singletable/telemetry"
)

const tracerName = "singletable/server"

// observed fills in the telemetry defaults of cfg: the global tracer provider, and the loaders'
// batch reports to the metrics and the tracer.
func (cfg Config) observed() Config {
	if cfg.TracerProvider == nil {
		cfg.TracerProvider = otel.GetTracerProvider()
	}
	if cfg.Loaders.OnBatch == nil && cfg.Metrics != nil {
		cfg.Loaders.OnBatch = cfg.Metrics.LoaderBatch
	}
	if cfg.Loaders.TracerProvider == nil {
		cfg.Loaders.TracerProvider = cfg.TracerProvider
	}
	if cfg.Metrics != nil {
		if cfg.OnRateLimited == nil {
			cfg.OnRateLimited = cfg.Metrics.RateLimited
		}
		if cfg.OnOverCapacity == nil {
			cfg.OnOverCapacity = cfg.Metrics.OverCapacity
		}
		if cfg.OnUntrustedDocument == nil {
			cfg.OnUntrustedDocument = cfg.Metrics.UntrustedDocument
		}
		if cfg.OnSharedFallback == nil {
			cfg.OnSharedFallback = cfg.Metrics.SharedFallback
		}
	}
	return cfg
}

// withTracing opens the server span of every /query request ("POST /query"), continuing the
// caller's trace when the request carries a W3C traceparent header. The operation span and
// everything below it hang under it, and the request log line carries its trace id.
func withTracing(cfg Config, next http.Handler) http.Handler {
	tracer := cfg.TracerProvider.Tracer(tracerName)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/query" {
			next.ServeHTTP(w, r)
			return
		}
		ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tracer.Start(ctx, r.Method+" /query", trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("url.path", r.URL.Path),
				attribute.String("http.route", "/query")))
		defer span.End()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r.WithContext(ctx))
		span.SetAttributes(attribute.Int("http.response.status_code", sw.status))
		if sw.status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(sw.status))
		}
	})
}

// operationTelemetry is the gqlgen extension behind the operation's span and metrics: it opens
// one span per operation, named after it ("query OrgsAndUsers"), one span per resolver that does
// I/O (a field with a resolver that selects an object or list: "Organization.users"; traceField,
// called by fieldGuard), counts the operation in flight and records its duration and outcome.
// Documents refused before they run (parse and validation errors, limits) are recorded with their
// error code as outcome, under the operationName the client sent, if any: gqlgen keeps no parsed
// document for them.
type operationTelemetry struct {
	tracer  trace.Tracer
	metrics *telemetry.Metrics
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationInterceptor
	graphql.ResponseInterceptor
} = operationTelemetry{}

func newOperationTelemetry(cfg Config) operationTelemetry {
	return operationTelemetry{tracer: cfg.observed().TracerProvider.Tracer(tracerName), metrics: cfg.Metrics}
}

func (operationTelemetry) ExtensionName() string                   { return "OperationTelemetry" }
func (operationTelemetry) Validate(graphql.ExecutableSchema) error { return nil }

// operationRunning marks the context of an operation that InterceptOperation accounts for; its
// value is the operation's span.
type operationRunning struct{}

func (t operationTelemetry) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	name, kind := operationName(oc), operationType(oc)
	spanName := kind
	if name != "" {
		spanName += " " + name
	}
	attrs := []attribute.KeyValue{attribute.String("graphql.operation.type", kind)}
	if name != "" {
		attrs = append(attrs, attribute.String("graphql.operation.name", name))
	}
	ctx, span := t.tracer.Start(ctx, spanName, trace.WithAttributes(attrs...))
	ctx = context.WithValue(ctx, operationRunning{}, span)
	if kind == subscriptionOperation {
		// The span covers the opening (the resolver's checks); every event is an operation of
		// its own, spanned and counted by subscriptionEvents.
		defer span.End()
		return next(ctx)
	}
	start := time.Now()
	t.metrics.OperationStarted()
	responses := next(ctx)
	done := false
	return func(ctx context.Context) *graphql.Response {
		resp := responses(ctx)
		if done {
			return resp
		}
		// Queries and mutations answer once; a second call would be a streamed response.
		done = true
		outcome := outcomeOf(resp)
		if outcome != "ok" {
			span.SetStatus(codes.Error, outcome)
		}
		span.SetAttributes(attribute.String("graphql.outcome", outcome))
		span.End()
		t.metrics.OperationFinished(name, outcome, time.Since(start))
		return resp
	}
}

func (t operationTelemetry) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if ctx.Value(operationRunning{}) != nil || t.metrics == nil {
		return resp
	}
	// Refused before it ran: parse, validation or a limit.
	var took time.Duration
	if ri := requestInfoFrom(ctx); ri != nil {
		took = time.Since(ri.start)
	}
	name := ""
	if graphql.HasOperationContext(ctx) {
		name = operationName(graphql.GetOperationContext(ctx))
	}
	t.metrics.OperationStarted()
	t.metrics.OperationFinished(name, outcomeOf(resp), took)
	return resp
}

// traceField runs a field's resolver, in a span of its own when it is a resolver that does I/O
// (one that selects an object or list) and the operation is traced. fieldGuard calls it for
// every field.
func (t operationTelemetry) traceField(ctx context.Context, fc *graphql.FieldContext, next graphql.Resolver) (any, error) {
	// A nested field's context holds its parent resolver's span, ended by now: whether to trace is
	// the operation span's business.
	if !fc.IsResolver || len(fc.Field.Selections) == 0 {
		return next(ctx)
	}
	op, _ := ctx.Value(operationRunning{}).(trace.Span)
	if op == nil || !op.IsRecording() {
		return next(ctx)
	}
	ctx, span := t.tracer.Start(ctx, fc.Object+"."+fc.Field.Name,
		trace.WithAttributes(attribute.String("graphql.field.path", fc.Path().String())))
	defer span.End()
	res, err := next(ctx)
	if err != nil {
		span.SetStatus(codes.Error, "resolver error")
	}
	return res, err
}

// operationName is the operation's name: the one the client sent, or else the one the document
// gives the operation it runs ("" for an anonymous operation).
func operationName(oc *graphql.OperationContext) string {
	if oc == nil {
		return ""
	}
	if oc.OperationName != "" {
		return oc.OperationName
	}
	if oc.Operation != nil {
		return oc.Operation.Name
	}
	return ""
}

func operationType(oc *graphql.OperationContext) string {
	if oc != nil && oc.Operation != nil {
		return string(oc.Operation.Operation)
	}
	return "operation"
}

// outcomeOf is "ok" for an answer without errors, else the first error's code.
func outcomeOf(resp *graphql.Response) string {
	if resp == nil || len(resp.Errors) == 0 {
		return "ok"
	}
	if code, ok := resp.Errors[0].Extensions["code"].(string); ok && code != "" {
		return code
	}
	return "ERROR"
}
