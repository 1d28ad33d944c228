package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"singletable/resolvers"
)

// explainExtension answers a request that asks for its plan ("extensions": {"explain": true})
// with the plan instead of running the operation: the operation was parsed, bounded, validated,
// planned and priced like any other (operationPlan, with the same refusals: a document over a
// bound, over the complexity limit), and what execution would refuse before reading (FORBIDDEN
// root fields, malformed IDs, IDs outside the caller's scope) is in errors at the same paths;
// then nothing runs: no resolver, no DynamoDB call, no data entry. extensions.plan is the plan
// (maxCalls by DynamoDB operation, maxRounds, bounded, complexity and the limit, and the steps),
// extensions.dynamodb the cost, nothing. An explain of a document refused before it is planned
// has no plan; one refused by the complexity limit carries its plan next to the error.
type explainExtension struct {
	present graphql.ErrorPresenterFunc
	recover graphql.RecoverFunc
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationInterceptor
	graphql.ResponseInterceptor
} = explainExtension{}

func (explainExtension) ExtensionName() string                   { return "Explain" }
func (explainExtension) Validate(graphql.ExecutableSchema) error { return nil }

func (x explainExtension) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	po := plannedOf(oc)
	if !explainRequested(oc) || po == nil {
		return next(ctx)
	}
	rctx := graphql.WithResponseContext(ctx, x.present, x.recover)
	for _, fe := range po.explained.Errors {
		err := resolvers.FieldError(ctx, fe.Err)
		graphql.AddError(rctx, &gqlerror.Error{Err: err, Message: err.Error(), Path: fe.Path})
	}
	ri := requestInfoFrom(ctx)
	if ri != nil {
		ri.markExplained()
	}
	return graphql.OneShot(&graphql.Response{
		Errors:     graphql.GetErrors(rctx),
		Extensions: map[string]any{"plan": planEntry(po), "dynamodb": dynamoDBOf(ri)},
	})
}

// InterceptResponse adds the plan to an explain refused after it was planned (over the
// complexity limit).
func (explainExtension) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil || !graphql.HasOperationContext(ctx) {
		return resp
	}
	oc := graphql.GetOperationContext(ctx)
	if po := plannedOf(oc); po != nil && explainRequested(oc) {
		if resp.Extensions == nil {
			resp.Extensions = map[string]any{}
		}
		resp.Extensions["plan"] = planEntry(po)
	}
	return resp
}
