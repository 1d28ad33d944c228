package repository

import (
	"context"
	"strings"
	"sync"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// CallObserver is told about every DynamoDB call a Repo makes, inside a request or not (seeding,
// readiness probes): its operation name ("Query", "BatchGetItem", ...), the capacity it consumed,
// how long it took (SDK retries included) and whether it failed. The server's metrics hang on it;
// the repository itself knows nothing of Prometheus. It must be safe for concurrent use and quick.
type CallObserver func(operation string, capacityUnits float64, took time.Duration, failed bool)

// tracerName is the instrumentation scope of the repository's spans.
const tracerName = "singletable/repository"

// attrRPCSystem is a span attribute of every AWS call, after OpenTelemetry's conventions for AWS
// SDK calls; rpc.service names the service (its SDK service id).
var attrRPCSystem = attribute.String("rpc.system", "aws-api")

// The services the repository calls, as observeMiddleware names them.
const (
	serviceDynamoDB = "DynamoDB"
	serviceStreams  = "DynamoDB Streams"
)

// observeMiddleware opens one client span per call to service, named "DynamoDB.<Operation>" for
// DynamoDB (with the service, operation, table and consumed capacity as attributes), and reports
// the call to obs. Like the cost meter it sits in the Initialize step, after the meter has asked
// the call for its consumed capacity, so that SDK retries of one call make one span and one
// observation.
//
// With childOnly, a call opens a span only inside a trace (a span in its context): the stream
// reader polls each shard several times a second whether anything changed or not, and a root
// span per poll would drown the traces worth reading. Those calls are still observed.
//
// The OpenTelemetry contrib module for the AWS SDK would open the same spans, but it is no longer
// maintained and does not record consumed capacity; this is the few lines it would save.
func observeMiddleware(service, table string, obs CallObserver, tp trace.TracerProvider, childOnly bool) func(*middleware.Stack) error {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	tracer := tp.Tracer(tracerName)
	starts := spanStarts{prefix: strings.ReplaceAll(service, " ", "") + ".", service: attribute.String("rpc.service", service), table: table, byOp: map[string]spanStart{}}
	return initializeStep(middleware.InitializeMiddlewareFunc("Observe",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			op := awsmiddleware.GetOperationName(ctx)
			span := trace.SpanFromContext(ctx) // not recording: a no-op to end
			if !childOnly || span.SpanContext().IsValid() {
				start := starts.of(op)
				ctx, span = tracer.Start(ctx, start.name, start.opts...)
			}
			began := time.Now()
			out, md, err := next.HandleInitialize(ctx, in)
			took := time.Since(began)
			capacity := capacityOf(out.Result)
			if span.IsRecording() {
				span.SetAttributes(attribute.Float64("aws.dynamodb.consumed_capacity", capacity))
				if id, ok := awsmiddleware.GetRequestIDMetadata(md); ok {
					span.SetAttributes(attribute.String("aws.request_id", id))
				}
				if err != nil {
					span.RecordError(err)
					span.SetStatus(codes.Error, "DynamoDB call failed")
				}
			}
			span.End()
			if obs != nil {
				obs(op, capacity, took, err != nil)
			}
			return out, md, err
		}))
}

// spanStart is the name and start options of the spans of one operation.
type spanStart struct {
	name string
	opts []trace.SpanStartOption
}

// spanStarts builds the spanStart of each operation once: they are the same for every call, and
// building them costs allocations (the name, the attribute list, the options).
type spanStarts struct {
	prefix  string             // the service's span name prefix, "DynamoDB."
	service attribute.KeyValue // rpc.service
	table   string
	mu      sync.RWMutex
	byOp    map[string]spanStart
}

func (s *spanStarts) of(op string) spanStart {
	s.mu.RLock()
	st, ok := s.byOp[op]
	s.mu.RUnlock()
	if ok {
		return st
	}
	st = spanStart{name: s.prefix + op, opts: []trace.SpanStartOption{
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attrRPCSystem, s.service, attribute.String("rpc.method", op),
			attribute.StringSlice("aws.dynamodb.table_names", []string{s.table})),
	}}
	s.mu.Lock()
	s.byOp[op] = st
	s.mu.Unlock()
	return st
}

// initializeStep is the API option that adds mw to the Initialize step of every call, after the
// SDK's own. The SDK builds a call's middleware stack anew for each call: mw is built once here,
// so that each call does not allocate a closure and an interface value for it.
func initializeStep(mw middleware.InitializeMiddleware) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error { return stack.Initialize.Add(mw, middleware.After) }
}
