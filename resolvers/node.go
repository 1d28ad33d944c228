package resolvers

import (
	"context"
	"errors"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"singletable/apperr"
	"singletable/graph/model"
	"singletable/repository"
)

// errNoRead is a root level without the reads of the field being resolved: a bug.
var errNoRead = errors.New("the root level holds no reads for the field's IDs")

// resolveTyped is a typed lookup by global ID (user(id:), order(id:), …): the ID must be of d's type.
func resolveTyped[E repository.Entity, M model.Node, R any](ctx context.Context, d model.NodeType[E, M, R], field, id string) (M, error) {
	var zero M
	n, err := resolveOne(ctx, func(f graphql.CollectedField) *rootRead { return planRead(ctx, f, d, field, id, true) })
	if err != nil {
		return zero, err
	}
	v, _ := n.(M)
	return v, nil
}

// resolveNode fetches the object a global ID names (node(id:)).
func resolveNode(ctx context.Context, field, id string) (model.Node, error) {
	return resolveOne(ctx, func(f graphql.CollectedField) *rootRead { return planRead(ctx, f, nil, field, id, true) })
}

// resolveOne is the one object of a root lookup (node(id:), a typed lookup), read with the rest of
// the root level; plan plans its read when the root level does not hold it.
func resolveOne(ctx context.Context, plan func(graphql.CollectedField) *rootRead) (model.Node, error) {
	r := rootsOf(ctx)
	reads := r.readsOf(ctx, func() []*rootRead { return []*rootRead{plan(currentField(ctx))} })
	if len(reads) != 1 {
		return nil, apperr.Internal("lookup", errNoRead)
	}
	_, n, err := reads[0].get(ctx)
	r.readAhead(ctx)
	return n, err
}

// resolveNodes fetches several objects (nodes(ids:)), read with the rest of the root level. A
// failed entry is null with its own error at its index.
func resolveNodes(ctx context.Context, ids []string) ([]model.Node, error) {
	if len(ids) > maxNodes {
		return nil, errTooManyIDs()
	}
	r := rootsOf(ctx)
	reads := r.readsOf(ctx, func() []*rootRead {
		f := currentField(ctx)
		reads := make([]*rootRead, len(ids))
		for i, id := range ids {
			reads[i] = planRead(ctx, f, nil, "ids", id, false)
		}
		return reads
	})
	if len(reads) != len(ids) {
		return nil, apperr.Internal("nodes", errNoRead)
	}
	out := make([]model.Node, len(ids))
	var path ast.Path
	for i, rd := range reads {
		var err error
		if _, out[i], err = rd.get(ctx); err != nil {
			out[i] = nil
			if path == nil {
				path = graphql.GetPath(ctx)
			}
			p := append(append(ast.Path{}, path...), ast.PathIndex(i))
			err = FieldError(ctx, err)
			graphql.AddError(ctx, &gqlerror.Error{Err: err, Message: err.Error(), Path: p})
		}
	}
	r.readAhead(ctx)
	return out, nil
}

// errTooManyIDs refuses a nodes(ids:) with more than maxNodes IDs.
func errTooManyIDs() error {
	return apperr.InvalidInput("ids", "ask for at most %d ids at once", maxNodes)
}

// currentField is the field being resolved.
func currentField(ctx context.Context) graphql.CollectedField {
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		return fc.Field
	}
	return graphql.CollectedField{}
}
