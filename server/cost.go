package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"singletable/repository"
)

// costExtension adds the DynamoDB cost of an operation to its response as
// `extensions.dynamodb`: the calls it made by operation name and the capacity they consumed,
// read from the request's meter once the response is complete, and the principal's capacity
// budget left once that is debited (budgetRemaining). Every response carries the
// entry, so a client can watch what its queries cost (an operation delivered in payloads, @defer:
// each payload its own part, payloadCost); it is a gqlgen extension like the
// library's own (complexity, persisted queries), so it shows up in the handler's extension list.
type costExtension struct{}

var (
	_ graphql.HandlerExtension    = costExtension{}
	_ graphql.ResponseInterceptor = costExtension{}
)

// ExtensionName implements graphql.HandlerExtension.
func (costExtension) ExtensionName() string { return "DynamoDBCost" }

// Validate implements graphql.HandlerExtension; the extension works with any schema.
func (costExtension) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptResponse implements graphql.ResponseInterceptor.
func (costExtension) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil {
		return nil
	}
	if resp.Extensions == nil {
		resp.Extensions = map[string]any{}
	}
	ri := requestInfoFrom(ctx)
	if pc := payloadCostOf(ctx); pc != nil && ri != nil {
		resp.Extensions["dynamodb"] = pc.entry(ri, resp.HasNext == nil || !*resp.HasNext)
		return resp
	}
	resp.Extensions["dynamodb"] = dynamoDBOf(ri)
	return resp
}

// dynamoDBEntry is extensions.dynamodb: what the request's DynamoDB calls were and cost and,
// when the capacity budget is on, what is left of its principal's budget once this cost is
// debited (RCU).
type dynamoDBEntry struct {
	repository.Usage
	BudgetRemaining *float64 `json:"budgetRemaining,omitempty"`
}

// dynamoDBOf is the entry of the request ri describes (nil: none), its cost debited from its
// principal's budget.
func dynamoDBOf(ri *requestInfo) dynamoDBEntry {
	var e dynamoDBEntry
	if ri == nil {
		return e
	}
	e.Usage = ri.meter.Usage()
	if ri.budget != nil {
		left := ri.budget.settle(e.TotalCapacity, false)
		e.BudgetRemaining = &left
	}
	return e
}
