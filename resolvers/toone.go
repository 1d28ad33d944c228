package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"singletable/graph/model"
	"singletable/loaders"
	"singletable/planner"
	"singletable/repository"
)

// toOne is the object a to-one field returns, named by ref from its parent's item: read through
// the request's loaders (batched with its level, read ahead by the plan), or, when the operation
// asks nothing of it but its ID (planner's IDOnly, the rule the plan and explain follow too), made
// from ref alone, without a read.
func toOne[E repository.Entity, M model.Node, R any](ctx context.Context, d model.NodeType[E, M, R], ref R) (M, error) {
	if fc := graphql.GetFieldContext(ctx); fc != nil && planner.For(ctx).IDOnly(fc.Object, fc.Field) {
		return d.Named(ref)
	}
	return d.Load(ctx, loaders.For(ctx), ref)
}
