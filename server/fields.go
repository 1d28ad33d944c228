package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"singletable/repository"
	"singletable/resolvers"
)

// fieldGuard is the server's one gqlgen field interceptor. gqlgen passes every field of an
// answer, scalars included, through each registered field interceptor and allocates a closure per
// interceptor per field: on a deep list that is thousands of allocations per operation for each
// interceptor. The field-level jobs therefore share one pass, cheapest check first:
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
type fieldGuard struct{ telemetry operationTelemetry }

var _ interface {
	graphql.HandlerExtension
	graphql.FieldInterceptor
} = fieldGuard{}

func (fieldGuard) ExtensionName() string                   { return "FieldGuard" }
func (fieldGuard) Validate(graphql.ExecutableSchema) error { return nil }

func (g fieldGuard) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
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
