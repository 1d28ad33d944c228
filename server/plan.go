package server

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"singletable/apperr"
	"singletable/planner"
	"singletable/resolvers"
)

// operationPlan is the gqlgen extension that plans every operation once it is validated and its
// variables coerced, before anything runs (planner.Explain, with the caller's roles), and refuses
// one whose price is over the complexity limit: the limit is computed from the same plan an
// explain shows (one pricing model: 50 points per call that reads a page, ½ per other call;
// planner.Explanation.Price). The refusal keeps gqlgen's code, COMPLEXITY_LIMIT_EXCEEDED, and
// names the limit in extensions.limit and .max as the document bounds do. The plan is kept in the
// operation's stats for the explain extension, and the operation then runs with its levels
// (planner.WithPlan), planned once.
type operationPlan struct {
	limit  int
	shards int
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = operationPlan{}

func (operationPlan) ExtensionName() string                   { return "OperationPlan" }
func (operationPlan) Validate(graphql.ExecutableSchema) error { return nil }

// plannedOperation is what operationPlan keeps in an operation's stats.
type plannedOperation struct {
	plan      *planner.Plan
	explained *planner.Explanation
	limit     int
}

const planStats = "OperationPlan"

func (p operationPlan) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	plan := planner.NewPlan(oc, nil)
	e := resolvers.Explain(ctx, plan, p.shards, explainRequested(oc))
	oc.Stats.SetExtension(planStats, &plannedOperation{plan: plan, explained: e, limit: p.limit})
	if price := e.Price(); price > p.limit {
		err := gqlerror.Errorf("operation has complexity %d, which exceeds the limit of %d", price, p.limit)
		errcode.Set(err, "COMPLEXITY_LIMIT_EXCEEDED")
		err.Extensions["limit"] = "complexity"
		err.Extensions["max"] = p.limit
		return err
	}
	return reserveCapacity(ctx, oc, e.Price())
}

// reserveCapacity reserves an operation's price (rcuPerPoint per point) from its principal's
// capacity budget before it runs (a subscription: before each event, subscriptionEvents), and
// refuses it, RATE_LIMITED with extensions.limit "capacity", when the budget is empty. An explain
// runs nothing and reserves nothing.
func reserveCapacity(ctx context.Context, oc *graphql.OperationContext, price int) *gqlerror.Error {
	ri := requestInfoFrom(ctx)
	if ri == nil || ri.budget == nil || explainRequested(oc) || operationType(oc) == subscriptionOperation {
		return nil
	}
	if ok, wait := ri.budget.reserve(ctx, float64(price)*rcuPerPoint); !ok {
		return capacityRefusal(wait)
	}
	return nil
}

// capacityRefusal is the GraphQL error of an operation its principal's capacity budget refuses.
func capacityRefusal(wait time.Duration) *gqlerror.Error {
	secs := retryAfterSeconds(wait)
	err := gqlerror.Errorf("This client has used its DynamoDB capacity budget; retry after %d s.", secs)
	errcode.Set(err, string(apperr.CodeRateLimited))
	err.Extensions["limit"] = RefusedCapacity
	return err
}

// plannedOf is the plan operationPlan made for oc, nil if none.
func plannedOf(oc *graphql.OperationContext) *plannedOperation {
	if oc == nil {
		return nil
	}
	po, _ := oc.Stats.GetExtension(planStats).(*plannedOperation)
	return po
}

// withOperationPlan returns ctx carrying the plan the operation runs with: the one made to price
// it, unless the server plans with another planner (the benchmarks' baseline).
func withOperationPlan(ctx context.Context, oc *graphql.OperationContext, p planner.Planner) context.Context {
	if po := plannedOf(oc); po != nil && p == nil {
		return planner.WithPlan(ctx, po.plan)
	}
	return planner.NewContext(ctx, oc, p)
}

// explainRequested reports whether the request asked for the plan instead of the data
// ("extensions": {"explain": true}).
func explainRequested(oc *graphql.OperationContext) bool {
	if oc == nil {
		return false
	}
	v, _ := oc.Extensions["explain"].(bool)
	return v
}

// planJSON is extensions.plan: the plan's bounds, its price and the limit it is held to, and its
// steps.
type planJSON struct {
	MaxCalls        map[planner.Operation]int `json:"maxCalls"`
	MaxRounds       int                       `json:"maxRounds"`
	Bounded         bool                      `json:"bounded"`
	Complexity      int                       `json:"complexity"`
	ComplexityLimit int                       `json:"complexityLimit"`
	Steps           []planner.Step            `json:"steps"`
}

func planEntry(po *plannedOperation) planJSON {
	e := po.explained
	return planJSON{MaxCalls: e.MaxCalls, MaxRounds: e.MaxRounds, Bounded: e.Bounded, Complexity: e.Price(),
		ComplexityLimit: po.limit, Steps: e.Steps}
}
