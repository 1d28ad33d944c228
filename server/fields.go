package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"singletable/repository"
	"singletable/resolvers"
)

// fieldGuard is the server's one gqlgen field middleware. gqlgen passes every field of an answer,
// scalars included, through the operation's field middleware; a registered graphql.FieldInterceptor
// gets there through a closure gqlgen allocates per interceptor per field (about one allocation in
// twenty of a deep tree's). fieldGuard is therefore no registered interceptor: as an operation
// context mutator it sets itself as the operation's field middleware (ResolverMiddleware), called
// with each field's resolver as is. It is the only one: a graphql.FieldInterceptor registered
// with the server would be bypassed (TestOneFieldMiddleware); what must wrap it is a mutator
// registered after it that wraps oc.ResolverMiddleware. The field-level jobs share its one pass,
// cheapest check first:
//   - record: over an incremental transport, the concrete type of an object whose field declares
//     an interface or a union (recordObjectType), which says which of its fields are deferred;
//   - authorize: a root field the caller's roles never allow is FORBIDDEN before its resolver
//     runs (authorizeRootField);
//   - trace: a resolver that does I/O gets a span when the operation is traced
//     (operationTelemetry.traceField);
//   - classify: an error without a code gets one (resolvers.FieldError). Errors that gqlgen raises
//     itself while coercing arguments never pass through here, which is how presentError tells
//     them apart as client mistakes.
//
// A refused root field gets no span of its own: its resolver never runs, and the operation's span
// records the FORBIDDEN outcome.
type fieldGuard struct {
	telemetry operationTelemetry
	// intercept is InterceptField as a function value, made once for every operation.
	intercept graphql.FieldMiddleware
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = (*fieldGuard)(nil)

func newFieldGuard(telemetry operationTelemetry) *fieldGuard {
	g := &fieldGuard{telemetry: telemetry}
	g.intercept = g.InterceptField
	return g
}

func (*fieldGuard) ExtensionName() string                   { return "FieldGuard" }
func (*fieldGuard) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext makes the guard the operation's field middleware, in place of gqlgen's
// chain of registered interceptors (of which there are none).
func (g *fieldGuard) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	oc.ResolverMiddleware = g.intercept
	return nil
}

func (g *fieldGuard) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return next(ctx)
	}
	recordObjectType(ctx, fc)
	if err := authorizeRootField(ctx, fc); err != nil {
		return nil, err
	}
	if fc.Object == "Query" {
		// A query's root fields make its first round of reads: the loaders count the rounds
		// after it from the data each batch waits for, not from the machine's timing.
		ctx = repository.WithRound(ctx, 0)
	}
	res, err := g.telemetry.traceField(ctx, fc, next)
	if err != nil {
		return res, resolvers.FieldError(ctx, err)
	}
	return res, nil
}
