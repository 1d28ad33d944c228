package resolvers

import (
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"singletable/apperr"
	"singletable/graph/model"
	"singletable/loaders"
	"singletable/planner"
	"singletable/repository"
	"singletable/repository/saas"
)

// The root level of a query is every object its root lookups (node, nodes, the typed lookups)
// ask for by ID. All their keys are known from the arguments before anything is read, so the first
// root resolver to run dispatches the whole level at once, without a batch window: one
// BatchGetItem per ⌈keys / 100⌉ for every lookup by key of every root field together, the
// combined reads (an object with the first page of a child list) and the child lists whose keys
// follow from the IDs. Each root resolver then waits for its own objects, and for the level:
// once every root object is read, the next level (the lookups their selected fields make, the
// child lists of the pages read with them) is read ahead in one go, before any resolver returns.

// A rootRead is one object a root lookup asks for by ID.
type rootRead struct {
	node  model.AnyNode
	parts []string
	// level is the plan of the objects of this type at this root field; comb the list read
	// together with the object (nil: a lookup by key).
	level *planner.Level
	comb  *planner.ListUse
	// err is the ID's own error (malformed, of another type, outside the caller's scope):
	// nothing is read for it.
	err error

	once   sync.Once
	entity repository.Entity
	obj    model.Node
	items  []repository.Entity // the elements of the page read with the object
	fail   error
}

// rootLevel is the root level of one operation.
type rootLevel struct {
	fields map[*ast.Field][]*rootRead
	reads  []*rootRead
	ahead  sync.Once
}

// maxNodes bounds the IDs one `nodes` call may ask for.
const maxNodes = 100

// rootsOf is the root level of ctx's operation, planned and dispatched by the first caller.
func rootsOf(ctx context.Context) *rootLevel {
	return planner.For(ctx).Once(func() any {
		r := planRoots(ctx)
		r.dispatch(ctx)
		return r
	}).(*rootLevel)
}

// planRoots decodes and scope-checks every ID of every root lookup of ctx's operation.
func planRoots(ctx context.Context) *rootLevel {
	r := &rootLevel{fields: map[*ast.Field][]*rootRead{}}
	if !graphql.HasOperationContext(ctx) {
		return r
	}
	op := graphql.GetOperationContext(ctx)
	if op.Operation == nil || op.Operation.Operation != ast.Query {
		return r
	}
	for _, f := range graphql.CollectFields(op, op.Operation.SelectionSet, []string{"Query"}) {
		if row := planner.FieldOf("Query", f.Name); row != nil && row.Kind == planner.Lookup {
			reads := planField(ctx, f, row, f.ArgumentMap(op.Variables))
			r.fields[f.Field] = reads
			r.reads = append(r.reads, reads...)
		}
	}
	return r
}

// planField is the reads of root lookup f (row) asked with args.
func planField(ctx context.Context, f graphql.CollectedField, row *planner.Field, args map[string]any) []*rootRead {
	d, field, ids := rootIDs(row, args)
	if len(ids) > maxNodes {
		return nil // refused by resolveNodes, nothing read
	}
	reads := make([]*rootRead, len(ids))
	for i, id := range ids {
		reads[i] = planRead(ctx, f, d, field, id, field == "id")
	}
	return reads
}

// rootIDs are the IDs root lookup row asks for with args, the argument that holds them (id, or
// ids for nodes) and their node type (nil: any, learnt from each ID).
func rootIDs(row *planner.Field, args map[string]any) (d model.AnyNode, field string, ids []string) {
	if row.Of != "" {
		id, _ := idArg(args, "id")
		d, _ = model.NodeNamed(row.Of)
		return d, "id", []string{id}
	}
	if id, ok := idArg(args, "id"); ok {
		return nil, "id", []string{id}
	}
	ids, _ = idsArg(args, "ids")
	return nil, "ids", ids
}

// planRead decodes one ID given to f in argument field (as a d's ID when d is set, any node's
// otherwise), checks its scope, and plans its read: one object alone may be read with its
// combined child list.
func planRead(ctx context.Context, f graphql.CollectedField, d model.AnyNode, field, id string, alone bool) *rootRead {
	rd := &rootRead{}
	if rd.node, rd.parts, rd.err = decodeRead(ctx, requestLoaders{}, d, field, id); rd.err != nil {
		return rd
	}
	rd.level = planner.For(ctx).ObjectsOf(f, rd.node.TypeName())
	if u, ok := rd.level.Combined(); ok && (alone || !u.Field.OneParent) && mayRead(ctx, u) {
		rd.comb = u
	}
	return rd
}

// mayRead reports whether the caller may read list u (auth's field policy). A list it may not
// read is neither read with its parent nor started from the parent's ID: its field is refused,
// and the parent is read by key, so that nothing the caller may not see is read for it.
func mayRead(ctx context.Context, u *planner.ListUse) bool {
	return FieldPolicy(ctx, u.Field.Type, u.Field.Name) == nil
}

// decodeRead decodes one ID given to a root lookup in argument field (as a d's ID when d is set,
// any node's otherwise), completes a legacy ID through r (a read for some callers: see
// model.NodeType.LegacyParts) and checks it against the caller's scope.
func decodeRead(ctx context.Context, r model.KeyReader, d model.AnyNode, field, id string) (model.AnyNode, []string, error) {
	var (
		parts []string
		err   error
	)
	if d != nil {
		parts, err = d.DecodeAny(field, id)
	} else {
		d, parts, err = model.DecodeNode(field, id)
	}
	if err == nil {
		parts, err = d.CompleteParts(ctx, r, parts)
	}
	if err != nil {
		return d, nil, err
	}
	return d, parts, visible(ctx, d, parts)
}

// dispatch starts every read of the level: the combined reads, one batch of every key, and the
// child lists whose keys follow from the IDs of objects the caller sees.
func (r *rootLevel) dispatch(ctx context.Context) {
	var l *loaders.Loaders // only when there is something to read: refused IDs never reach them
	var keys []repository.Key
	var lists []*planner.ListUse
	parents := map[*planner.ListUse][][]string{}
	for _, rd := range r.reads {
		if rd.err != nil {
			continue
		}
		if l == nil {
			l = loaders.For(ctx)
		}
		if rd.comb != nil {
			combinedReads[rd.comb.Field].start(ctx, l, rd.parts, rd.comb)
		} else if k, err := rd.node.KeyOf(rd.parts); err == nil {
			keys = append(keys, k)
		}
		for _, u := range rd.level.Lists() {
			if u.Plain && u != rd.comb && mayRead(ctx, u) {
				if _, seen := parents[u]; !seen {
					lists = append(lists, u)
				}
				parents[u] = append(parents[u], rd.parts)
			}
		}
	}
	if l == nil {
		return
	}
	l.FetchNow(ctx, keys...)
	for _, u := range lists {
		if start := listStarts[u.Field]; start != nil {
			start(ctx, l, parents[u], u)
		}
	}
}

// readsOf are the reads of the root lookup being resolved; plan is how to plan them when the
// operation's root level does not hold them (a resolver called outside gqlgen's execution).
func (r *rootLevel) readsOf(ctx context.Context, plan func() []*rootRead) []*rootRead {
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		if reads, ok := r.fields[fc.Field.Field]; ok {
			return reads
		}
	}
	reads := plan()
	(&rootLevel{reads: reads}).dispatch(ctx)
	return reads
}

// get is the read's object, read once.
func (rd *rootRead) get(ctx context.Context) (repository.Entity, model.Node, error) {
	if rd.err != nil {
		return nil, nil, rd.err
	}
	rd.once.Do(func() { rd.entity, rd.obj, rd.items, rd.fail = rd.read(ctx) })
	return rd.entity, rd.obj, rd.fail
}

// read reads the object: with its combined list, or by key.
func (rd *rootRead) read(ctx context.Context) (repository.Entity, model.Node, []repository.Entity, error) {
	l := loaders.For(ctx)
	var (
		e     repository.Entity
		n     model.Node
		items []repository.Entity
		err   error
	)
	if rd.comb != nil {
		e, n, items, err = combinedReads[rd.comb.Field].read(ctx, l, rd.parts, rd.comb)
	} else {
		e, n, err = readByKey(ctx, l, rd.node, rd.parts)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return e, n, items, nil
}

// readByKey reads the object of node type d whose ID has parts by key, and wraps it.
func readByKey(ctx context.Context, l *loaders.Loaders, d model.AnyNode, parts []string) (repository.Entity, model.Node, error) {
	k, err := d.KeyOf(parts)
	if err != nil {
		return nil, nil, err
	}
	e, err := l.Lookup(ctx, k, d.KindName())
	if err != nil {
		return nil, nil, err
	}
	n, ok := d.WrapAny(e)
	if !ok {
		return nil, nil, apperr.NotFound(d.KindName())
	}
	return e, n, nil
}

// readAhead waits for every object of the root level and reads the next level ahead, once per
// operation: the lookups the objects' selected fields make, and the child lists of the pages read
// with them.
func (r *rootLevel) readAhead(ctx context.Context) {
	r.ahead.Do(func() {
		var levels []loaders.LevelObjects
		for _, rd := range r.reads {
			e, _, err := rd.get(ctx)
			if err != nil {
				continue
			}
			levels = addObjects(levels, levelOf(rd.level), true, e)
			if rd.comb != nil && rd.comb.Nodes != nil {
				levels = addObjects(levels, levelOf(rd.comb.Nodes), false, rd.items...)
			}
		}
		if len(levels) > 0 {
			// The root level's reads are the operation's first round (dispatch): what their
			// objects need next waits for them.
			if _, known := repository.RoundOf(ctx); known {
				ctx = repository.WithRound(ctx, 1)
			}
			loaders.For(ctx).ReadAhead(ctx, levels...)
		}
	})
}

// addObjects adds objects of level to levels, joining those of the same level and state.
func addObjects(levels []loaders.LevelObjects, level loaders.Level, started bool, objects ...repository.Entity) []loaders.LevelObjects {
	if level == nil || len(objects) == 0 {
		return levels
	}
	for i := range levels {
		if levels[i].Level == level && levels[i].ListsStarted == started {
			levels[i].Objects = append(levels[i].Objects, objects...)
			return levels
		}
	}
	return append(levels, loaders.LevelObjects{Level: level, Objects: objects, ListsStarted: started})
}

// requestLoaders reads through the request's loaders, found only when a read is made: completing
// a legacy ID reads for admin only, and an ID refused before any read never reaches the loaders.
type requestLoaders struct{}

var (
	_ model.KeyReader    = requestLoaders{}
	_ model.TicketFinder = requestLoaders{}
)

func (requestLoaders) Lookup(ctx context.Context, key repository.Key, kind string) (repository.Entity, error) {
	return loaders.For(ctx).Lookup(ctx, key, kind)
}

func (requestLoaders) TicketByID(ctx context.Context, id string) (*saas.Ticket, error) {
	return loaders.For(ctx).TicketByID(ctx, id)
}
