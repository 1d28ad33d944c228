package server

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"singletable/auth"
	"singletable/changefeed"
	"singletable/loaders"
	"singletable/repository"
	"singletable/repository/store"
	"singletable/resolvers"
)

// DefaultMaxSubscriptions is the cap on the subscriptions one instance serves at once that
// cmd/server applies (MAX_SUBSCRIPTIONS): twice the 1,000 subscribers the design asks one
// instance to carry. Past it a subscription answers UNAVAILABLE and its client retries, here
// later or on another instance. Memory per subscriber is in docs/benchmarks.md.
const DefaultMaxSubscriptions = 2000

// DefaultMaxSubscriptionsPerPrincipal is MAX_SUBSCRIPTIONS_PER_PRINCIPAL's default: the
// subscriptions one principal holds at once on an instance. A screen needs a handful; 100 leaves
// room for many tabs and devices, while one principal can take only a twentieth of the instance.
// Past it a subscription is RATE_LIMITED (changefeed.ErrTooManyOfOwner).
const DefaultMaxSubscriptionsPerPrincipal = 100

const subscriptionOperation = "subscription"

// addStreamTransports adds the WebSocket and Server-Sent Events transports (streams.go), ahead
// of the HTTP ones: gqlgen serves a request with the first transport that takes it, and POST
// would take a Server-Sent Events request. Server-Sent Events carry deferred queries too
// (serverSentEvents).
func addStreamTransports(srv *handler.Server, cfg Config, schema *ast.Schema) {
	srv.AddTransport(socketGuard{
		Websocket: transport.Websocket{
			Implementation:   websocketAccept(cfg.CORSOrigins),
			InitFunc:         wsInit(cfg.Auth, closedContext(cfg.Hub)),
			InitTimeout:      wsInitTimeout,
			PingPongInterval: wsPingInterval,
		},
		trusted: cfg.TrustedProxies, pending: newAddressCounts(maxPendingSocketsPerAddress),
	})
	srv.AddTransport(serverSentEvents(cfg, schema))
}

// closedContext is a context cancelled when hub is closed (the server is shutting down); never
// for no hub.
func closedContext(hub *changefeed.Hub) context.Context {
	if hub == nil {
		return context.Background()
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-hub.Done()
		cancel()
	}()
	return ctx
}

// wsConn counts the subscriptions open on one WebSocket, so that a shutdown closes the socket
// only after they completed: a client then sees each subscription's complete, then the close.
type wsConn struct{ open atomic.Int64 }

type wsConnKey struct{}

// drainWait bounds how long a shutdown waits for a socket's subscriptions to complete.
const drainWait = 5 * time.Second

// opened counts a subscription of the socket until ctx, the subscription's, ends.
func (c *wsConn) opened(ctx context.Context) {
	c.open.Add(1)
	context.AfterFunc(ctx, func() { c.open.Add(-1) })
}

// closeWhenDrained closes the socket (cancel) once its subscriptions completed, or after
// drainWait.
func (c *wsConn) closeWhenDrained(cancel context.CancelFunc) {
	for deadline := time.Now().Add(drainWait); c.open.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
}

// subscriptionEvents is the gqlgen extension that drives subscriptions (resolvers/stream.go):
// around a subscription operation it gives the resolver a slot for its EventStream; around each
// response it waits for the stream's next event and resolves it as an operation of its own: fresh
// loaders (nothing cached across events, so a nested field shows what the table holds now), a
// fresh meter (each event's extensions.dynamodb is its own cost), the operation time limit, a span
// and the operation metrics, named after the subscription. When the stream ends with an error,
// that error is the last response. It is registered before costExtension, which reads the meter
// it installs.
type subscriptionEvents struct {
	telemetry operationTelemetry
	repo      *store.Store
	loaders   loaders.Options
	timeout   time.Duration
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationInterceptor
	graphql.ResponseInterceptor
} = subscriptionEvents{}

func (subscriptionEvents) ExtensionName() string                   { return "SubscriptionEvents" }
func (subscriptionEvents) Validate(graphql.ExecutableSchema) error { return nil }

func (e subscriptionEvents) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	if operationType(oc) != subscriptionOperation {
		return next(ctx)
	}
	ctx = resolvers.WithEventStream(ctx)
	if c, ok := ctx.Value(wsConnKey{}).(*wsConn); ok {
		c.opened(ctx)
	}
	start := time.Now()
	responses := next(ctx)
	if stream, _ := resolvers.EventStreamOf(ctx); stream != nil {
		return responses
	}
	// Refused as it opened (its one response holds the errors): gqlgen answers it without the
	// response interceptors, so it gets its cost entry and its metrics here.
	name := operationName(oc)
	return func(ctx context.Context) *graphql.Response {
		resp := responses(ctx)
		if resp == nil {
			return nil
		}
		e.telemetry.metrics.OperationStarted()
		e.telemetry.metrics.OperationFinished(name, outcomeOf(resp), time.Since(start))
		return withCost(ctx, resp)
	}
}

func (e subscriptionEvents) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	stream, _ := resolvers.EventStreamOf(ctx)
	if stream == nil {
		return next(ctx)
	}
	ok, err := stream.Next(ctx)
	switch {
	case ok:
		return e.event(ctx, next)
	case err != nil:
		graphql.AddError(ctx, err)
		return withCost(eventMeter(ctx), &graphql.Response{Errors: graphql.GetErrors(ctx)})
	}
	return nil
}

// event resolves the event the stream has just put into the resolver's channel, once it has
// reserved the price of the subscription's plan from its principal's capacity budget: an empty
// budget ends the subscription with RATE_LIMITED (extensions.limit "capacity").
func (e subscriptionEvents) event(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	oc := graphql.GetOperationContext(ctx)
	name := operationName(oc)
	start := time.Now()
	ctx, cancel := context.WithTimeout(eventMeter(ctx), e.timeout)
	defer cancel()
	if ri := requestInfoFrom(ctx); ri.budget != nil {
		price := 0
		if po := plannedOf(oc); po != nil {
			price = po.explained.Price()
		}
		if ok, wait := ri.budget.reserve(ctx, float64(price)*rcuPerPoint); !ok {
			return e.endOverBudget(ctx, wait)
		}
	}
	ctx = loaders.NewContext(ctx, loaders.New(e.repo, e.loaders))
	spanName := "subscription event"
	if name != "" {
		spanName += " " + name
	}
	ctx, span := e.telemetry.tracer.Start(ctx, spanName, trace.WithAttributes(attribute.String("graphql.operation.type", subscriptionOperation)))
	defer span.End()
	ctx = context.WithValue(ctx, operationRunning{}, span)
	e.telemetry.metrics.OperationStarted()
	resp := next(ctx)
	outcome := outcomeOf(resp)
	if outcome != "ok" {
		span.SetStatus(codes.Error, outcome)
	}
	span.SetAttributes(attribute.String("graphql.outcome", outcome))
	e.telemetry.metrics.OperationFinished(name, outcome, time.Since(start))
	return resp
}

// endOverBudget ends a subscription whose principal's budget is spent: its error is the last
// response, and the stream is closed (resolvers.EventStream: Next answers nothing more).
func (e subscriptionEvents) endOverBudget(ctx context.Context, wait time.Duration) *graphql.Response {
	if stream, _ := resolvers.EventStreamOf(ctx); stream != nil {
		stream.Close()
	}
	return withCost(ctx, &graphql.Response{Errors: gqlerror.List{capacityRefusal(wait)}})
}

// eventMeter returns ctx with a meter and request info of their own: what one event costs, on
// the account of the subscription's principal (the socket's, from its connection_init; the
// request's, over Server-Sent Events).
func eventMeter(ctx context.Context) context.Context {
	ctx, meter := repository.WithMeter(ctx)
	ev := &requestInfo{start: time.Now(), meter: meter, stream: true}
	if ri := requestInfoFrom(ctx); ri != nil {
		ev.id = ri.id
		ev.setOperation(ri.operation())
		if ri.budget != nil {
			key := ri.budget.key
			if p, ok := auth.FromContext(ctx); ok && p.Subject != "" {
				key = subjectKey(p.Subject)
			}
			ev.budget = &requestBudget{store: ri.budget.store, local: ri.budget.local, key: key}
		}
	}
	return context.WithValue(ctx, requestInfoKey{}, ev)
}

// withCost gives resp its extensions.dynamodb entry, as costExtension gives every other response.
func withCost(ctx context.Context, resp *graphql.Response) *graphql.Response {
	return costExtension{}.InterceptResponse(ctx, func(context.Context) *graphql.Response { return resp })
}
