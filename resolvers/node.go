package resolvers

import (
	"context"
	"errors"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"singletable/apperr"
	"singletable/auth"
	"singletable/graph/model"
	"singletable/loaders"
	"singletable/planner"
	"singletable/repository"
)

// maxNodes bounds the IDs one `nodes` call may ask for.
const maxNodes = 100

// combinedFirst is the page size of the combined read (planner.CombinedFor) the current field
// asks for on objects of type typ: the object is then read with that first page of its child list
// in one Query. 0 means a plain lookup by key; always 0 in the per-parent baseline.
func combinedFirst(ctx context.Context, typ string) int {
	c, ok := planner.CombinedFor(typ)
	if !ok || !loaders.For(ctx).ReadAhead() {
		return 0
	}
	return c.First(planner.On(ctx, typ))
}

// lookup is a typed lookup by global ID (user(id:), order(id:), …): the ID must be of d's type.
func lookup[E repository.Entity, M model.Node, R any](ctx context.Context, d model.NodeType[E, M, R], field, id string) (M, error) {
	var zero M
	parts, err := d.Decode(field, id)
	if err != nil {
		return zero, err
	}
	n, err := resolveDecoded(ctx, d, parts)
	if err != nil {
		return zero, err
	}
	v, _ := n.(M)
	return v, nil
}

// resolveNode fetches the object a global ID names (node(id:)).
func resolveNode(ctx context.Context, field, id string) (model.Node, error) {
	d, parts, err := model.DecodeNode(field, id)
	if err != nil {
		return nil, err
	}
	return resolveDecoded(ctx, d, parts)
}

// resolveDecoded fetches one object asked for by ID, starting first the child lists the operation
// asks for on it (their keys follow from the ID).
func resolveDecoded(ctx context.Context, d model.AnyNode, parts []string) (model.Node, error) {
	dec, err := visible(ctx, d, parts)
	if err != nil {
		return nil, err
	}
	t := nodeTypes[d.TypeName()]
	if t.start != nil {
		t.start(ctx, planner.On(ctx, d.TypeName()), [][]string{parts}, false)
	}
	first := combinedFirst(ctx, d.TypeName())
	_, n, err := fetchNode(ctx, t, parts, first, dec)
	if err == nil && first > 0 {
		startAheadLevel(ctx, d.TypeName(), []model.Node{n})
	}
	return n, err
}

// fetchNode reads an object of registry type t by its ID's parts: with the first page of its
// combined child list when first > 0, else by key through the loader. dec is the ID's scope
// decision: AfterRead checks the item's tenant once it is read.
func fetchNode(ctx context.Context, t nodeType, parts []string, first int, dec auth.Decision) (repository.Entity, model.Node, error) {
	var (
		e   repository.Entity
		n   model.Node
		err error
	)
	if first > 0 && t.combined != nil {
		e, n, err = t.combined(ctx, parts, first)
	} else {
		var k repository.Key
		if k, err = t.node.KeyOf(parts); err == nil {
			e, err = loaders.For(ctx).Lookup(ctx, k, t.node.KindName())
		}
		if err == nil {
			var ok bool
			if n, ok = t.node.WrapAny(e); !ok {
				err = apperr.NotFound(t.node.KindName())
			}
		}
	}
	if err == nil && dec == auth.AfterRead {
		err = t.node.VisibleItem(ctx, e, "")
	}
	if err != nil {
		return nil, nil, err
	}
	return e, n, nil
}

// decoded is one entry of nodes(ids:) after decoding.
type decoded struct {
	typ   string
	parts []string
	t     nodeType
	dec   auth.Decision
	first int // combined read's page size, 0 for a lookup by key
	err   error
}

// resolveNodes fetches several objects concurrently, so that key lookups land in one batch and
// combined Queries run side by side. A failed entry is null with its own error at its index.
func resolveNodes(ctx context.Context, ids []string) ([]model.Node, error) {
	if len(ids) > maxNodes {
		return nil, apperr.InvalidInput("ids", "ask for at most %d ids at once", maxNodes)
	}
	// Send every plain key lookup at once, in one batch (loaders.FetchNow): nodes holds all the
	// keys of its level, so waiting for the loader's window would only add its length. The child
	// lists whose keys follow from the IDs start here too, all in one loop.
	entries := make([]decoded, len(ids))
	firsts := map[string]int{}
	starts := map[string][][]string{}
	var keys []repository.Key
	for i, id := range ids {
		d := &entries[i]
		var node model.AnyNode
		if node, d.parts, d.err = model.DecodeNode("ids", id); d.err != nil {
			continue
		}
		d.typ, d.t = node.TypeName(), nodeTypes[node.TypeName()]
		if d.dec, d.err = visible(ctx, node, d.parts); d.err != nil {
			continue
		}
		first, ok := firsts[d.typ]
		if !ok {
			if c, has := planner.CombinedFor(d.typ); has && !c.PerParentOnly() {
				first = combinedFirst(ctx, d.typ)
			}
			firsts[d.typ] = first
		}
		d.first = first
		starts[d.typ] = append(starts[d.typ], d.parts)
		if first > 0 {
			continue // read with its first child page by one Query instead
		}
		if k, err := node.KeyOf(d.parts); err == nil {
			keys = append(keys, k)
		}
	}
	loaders.For(ctx).FetchNow(ctx, keys...)
	for typ, parts := range starts {
		if start := nodeTypes[typ].start; start != nil {
			start(ctx, planner.On(ctx, typ), parts, true)
		}
	}

	out := make([]model.Node, len(ids))
	read := make([]repository.Entity, len(ids))
	var wg sync.WaitGroup
	for i := range entries {
		d := &entries[i]
		if d.err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				// gqlgen recovers panics only on its own goroutines.
				if p := recover(); p != nil {
					d.err = graphql.GetOperationContext(ctx).Recover(ctx, p)
				}
			}()
			read[i], out[i], d.err = fetchNode(ctx, d.t, d.parts, d.first, d.dec)
		}()
	}
	wg.Wait()
	path := graphql.GetPath(ctx)
	byType := map[string][]repository.Entity{}
	plain := map[string][]repository.Entity{} // read without their child lists
	combined := map[string][]model.Node{}     // read with them
	var types []string
	for i, d := range entries {
		if d.err != nil {
			out[i] = nil
			p := append(ast.Path{}, path...)
			err := withCode(d.err)
			graphql.AddError(ctx, &gqlerror.Error{Err: err, Message: err.Error(), Path: append(p, ast.PathIndex(i))})
			continue
		}
		if _, seen := byType[d.typ]; !seen {
			types = append(types, d.typ)
		}
		byType[d.typ] = append(byType[d.typ], read[i])
		if d.first == 0 {
			plain[d.typ] = append(plain[d.typ], read[i])
		} else {
			combined[d.typ] = append(combined[d.typ], out[i])
		}
	}
	startNextLevel(ctx, types, byType)
	for _, typ := range types {
		startChildLists(ctx, planner.On(ctx, typ), plain[typ])
		startAheadLevel(ctx, typ, combined[typ])
	}
	return out, nil
}

// startNextLevel starts the lookups of the level below nodes(ids:): the to-one fields selected
// on the objects, the lookups their child lists' elements will make, and the relation items of the
// employees, all in one batch sent at once (nodes holds every key of this level).
func startNextLevel(ctx context.Context, types []string, byType map[string][]repository.Entity) {
	var next []repository.Key
	for _, typ := range types {
		s := planner.On(ctx, typ)
		next = append(next, planner.RefKeys(s, byType[typ])...)
		next = append(next, planner.ListParentKeys(s, byType[typ])...)
	}
	l := loaders.For(ctx)
	employees := entitiesOf[*repository.Employee](byType[model.Employees.Name])
	if ahead := planner.EmployeeAhead(planner.On(ctx, model.Employees.Name)); len(employees) > 0 && ahead.Any() {
		l.ReadAheadRelations(ctx, employees, ahead, next...)
		return
	}
	l.FetchNow(ctx, next...)
}

// entitiesOf is the entities of type T among es.
func entitiesOf[T repository.Entity](es []repository.Entity) []T {
	var out []T
	for _, e := range es {
		if t, ok := e.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// withCode gives an error that has no code (not one of ours: a library's, say) one by apperr.Classify,
// as the server does for every field's error (server.codeResolverError); nodes(ids:) adds its
// entries' errors itself, past that hook.
func withCode(err error) error {
	var gerr *gqlerror.Error
	if errors.As(err, &gerr) && gerr.Extensions["code"] != nil {
		return err
	}
	return apperr.Classify("node", err)
}
