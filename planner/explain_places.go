package planner

import (
	"iter"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"singletable/repository/hr"
)

// A place is objects of one type at one place of an operation, as the walk counts them: at most
// g groups (separate reads or sends: the lists of a level read one by one, say) of at most m
// objects each.
type place struct {
	path  string
	typ   string
	sels  ast.SelectionSet
	level *Level
	g, m  int
	// read is the round the objects are read in; resolve the round after which their fields'
	// resolvers run (a level read ahead hands its objects over once its lookups but the last
	// are back).
	read, resolve int
	// list is the row of the list the objects are the elements of (nil otherwise); parents is
	// how many of its lists, per group, there are.
	list    *Field
	parents int
	// sharedIn is the batch in which the lists' parent level looked up what every element of a
	// list shares (Field.SameForAll), in round sharedRound; nil when no level did (the parents'
	// fields were resolved one by one), and each element's resolver looks it up.
	sharedIn    *batch
	sharedRound int
	// free are the fields of the objects that what read them answers already: a list's Primes,
	// an object's items read together with it, a write's result.
	free []string
	// rels are the relations of the objects, with where their items and targets are read: given
	// by the level above for the relations it reads ahead (two levels deep), or by a write for
	// the relation items it wrote; the others are read by their resolvers.
	rels map[hr.RelationType]*preRead
	// comb is the list read together with the objects (root lookups); listsAt the round their
	// plain lists start in when it is not the round after read (lists started from IDs).
	comb    *ListUse
	listsAt int
	// seen are the to-one rows and relation types whose lookups are counted already (once per
	// place, as a level's lookups are), the shared fields counted, and the relations read ahead
	// two levels deep (seenRel).
	seen map[any]any
}

// preRead is a relation whose items are read before its objects' resolvers ask: items is the
// batch that reads them (nil: read already, by a write) and targets the batch of their targets;
// counted says the keys are counted already (once for all the occurrences of a relation).
type preRead struct {
	items, targets *batch
	counted        bool
}

// once reports whether k is new on the place, and marks it.
func (p *place) once(k any) bool {
	if p.seen == nil {
		p.seen = map[any]any{}
	}
	if _, ok := p.seen[k]; ok {
		return false
	}
	p.seen[k] = true
	return true
}

// isFree reports whether field name (row) of the objects costs nothing: read with them.
func (p *place) isFree(name string, row *Field) bool {
	if p.list.primes(name) {
		return true
	}
	if p.comb != nil && p.comb.Field == row && row.Kind != List {
		return true
	}
	for _, n := range p.free {
		if n == name {
			return true
		}
	}
	return false
}

// fields are the fields the place's selection selects on its objects, as gqlgen collects them.
// Those the field policy refuses the caller are recorded with their FORBIDDEN, as execution
// answers them, and still walked: what they would read stays in the bounds.
func (w *walker) fields(p *place) []graphql.CollectedField {
	if len(p.sels) == 0 {
		return nil
	}
	fields := w.plan.collect(p.sels, p.typ)
	for _, f := range fields {
		if err := w.ex.Allowed(p.typ, f.Name); err != nil {
			w.failAt(p.path, f, err)
		}
	}
	return fields
}

// failAt records err of field f under the place at path (response keys joined by dots) once,
// however often the walk visits the place.
func (w *walker) failAt(path string, f graphql.CollectedField, err error) {
	var at ast.Path
	if path != "" {
		for _, k := range strings.Split(path, ".") {
			at = append(at, ast.PathName(k))
		}
	}
	at = append(at, ast.PathName(f.Alias))
	for _, fe := range w.out.Errors {
		if fe.Path.String() == at.String() {
			return
		}
	}
	w.fail(at, err)
}

// target is the place of the objects field f (row) of p's objects returns: m of them per group,
// resolved once resolve is over.
func (w *walker) target(p *place, f graphql.CollectedField, row *Field, path string, m, resolve int) *place {
	return &place{path: path, typ: row.Of, sels: f.Selections, g: p.g, m: m, read: resolve, resolve: resolve}
}

// A fieldRow is a field of a place's objects with its row of Table and its path.
type fieldRow struct {
	f    graphql.CollectedField
	row  *Field
	path string
}

// rows are the fields of p's objects the walk counts, with their rows: those Table has, but the
// ones special handles (as rows reaches them, in the selection's order).
func (w *walker) rows(p *place) iter.Seq[fieldRow] {
	return func(yield func(fieldRow) bool) {
		for _, f := range w.fields(p) {
			row := w.rowOf(p.typ, f)
			path := w.pathOf(p.path, f)
			if row == nil || w.special(p, f, row, path) {
				continue
			}
			if !yield(fieldRow{f, row, path}) {
				return
			}
		}
	}
}

// toOne is to-one field (or items) fr of p's objects: its lookups counted once for the place, in
// the batch at, and what they find walked as resolved objects from round on.
func (w *walker) toOne(p *place, fr fieldRow, at func() *batch, round int) {
	if p.once(fr.row) {
		w.lookup(at(), fr.path, fr.row.Reads[0], p.m*keysOf(fr.row))
	}
	w.resolved(w.target(p, fr.f, fr.row, fr.path, p.m*keysOf(fr.row), round), nil)
}

// special handles the fields of p that cost nothing or were looked up by the level above
// (shared, free): true when f was one.
func (w *walker) special(p *place, f graphql.CollectedField, row *Field, path string) bool {
	if key, ok := p.list.sameForAll(f.Name); ok {
		w.shared(p, f, row, path, key != nil)
		return true
	}
	if p.isFree(f.Name, row) || row.Kind == Free {
		m := p.m
		if row.Kind == Items {
			m *= keysOf(row)
		}
		w.resolved(w.target(p, f, row, path, m, p.resolve), nil)
		return true
	}
	return false
}

// shared is a field every element of p's list shares (Field.SameForAll): looked up once per
// list, by the lists' parent level when it read ahead, else by the elements' resolvers. A key
// that is the parent's own (key false) was read already. Its objects are one per list.
func (w *walker) shared(p *place, f graphql.CollectedField, row *Field, path string, key bool) {
	resolve := p.resolve
	switch {
	case !key:
	case p.sharedIn != nil:
		if p.once("shared:" + f.Name) {
			w.lookup(p.sharedIn, path, row.Reads[0], ceilDiv(p.g*p.parents, p.sharedIn.groups))
		}
		resolve = max(resolve, p.sharedRound)
	default:
		if p.once("shared:" + f.Name) {
			w.lookup(w.newBatch(p.resolve+1, p.g), path, row.Reads[0], p.parents)
		}
		resolve = p.resolve + 1
	}
	w.resolved(w.target(p, f, row, path, p.parents, resolve), nil)
}

// resolved walks objects whose fields are each read by the field's own resolver when the objects
// resolve (a to-one field's objects, a mutation's result): to-one fields and relation items
// through the loaders' window in the next round, relation targets in the one after, lists by
// their resolvers. rels are relations read before (see place.rels).
func (w *walker) resolved(p *place, rels map[hr.RelationType]*preRead) {
	p.rels = rels
	w.windowed(p, p.resolve+1, func(fr fieldRow, _ func() *batch) {
		w.resolverList(p, fr.f, fr.row, fr.path, nil, 0)
	})
}

// windowed walks the fields of p's objects whose reads go through the loaders' window from round
// on: to-one fields and relation items in round, relation targets in the one after; list walks
// each list field (next: round's batch).
func (w *walker) windowed(p *place, round int, list func(fr fieldRow, next func() *batch)) {
	next, after := w.windows(p, round)
	for fr := range w.rows(p) {
		switch fr.row.Kind {
		case ToOne, Items:
			w.toOne(p, fr, next, round)
		case Relation:
			w.relation(p, fr.f, fr.row, fr.path, next, after)
		case List:
			list(fr, next)
		}
	}
}

// windows are the batches of the loaders' window in round and the round after, opened on first
// use, for the objects of p.
func (w *walker) windows(p *place, round int) (next, after func() *batch) {
	var b [2]*batch
	open := func(i int) func() *batch {
		return func() *batch {
			if b[i] == nil {
				b[i] = w.newBatch(round+i, p.g)
			}
			return b[i]
		}
	}
	return open(0), open(1)
}

// relation is relation field f of p's objects: read ahead by the level above or written by a
// mutation (p.rels), else by its resolver, the item in next and the target in after. Its keys
// are counted once for every occurrence of the relation; its targets are walked as resolved
// objects.
func (w *walker) relation(p *place, f graphql.CollectedField, row *Field, path string, next, after func() *batch) {
	pr := p.rels[row.Rel]
	switch {
	case pr == nil:
		pr = &preRead{items: next(), targets: after()}
		if p.rels == nil {
			p.rels = map[hr.RelationType]*preRead{}
		}
		p.rels[row.Rel] = pr
	case pr.targets == nil:
		pr.targets = next() // the item was written: only the target is read
	}
	if !pr.counted {
		pr.counted = true
		if pr.items != nil {
			w.lookup(pr.items, path, row.Reads[0], p.m)
		}
		w.lookup(pr.targets, path, row.Reads[1], p.m)
	}
	w.resolved(w.target(p, f, row, path, p.m, max(p.resolve, pr.targets.round)), nil)
}

// prefetched walks the elements of a list read on its own: its level starts their lists (for
// this list's elements alone) and sends their first lookups (relation items included) into the
// loaders' window in the next round; relation targets and the rest are their resolvers' to read.
func (w *walker) prefetched(p *place) {
	lists := p.level.Lists()
	li := 0
	w.windowed(p, p.read+1, func(fr fieldRow, next func() *batch) {
		if li < len(lists) {
			w.childList(p, fr.f, lists[li], fr.path, p.read+1, next(), p.read+1)
			li++
		}
	})
}

// childList is list u (field f) of p's objects, whose level runs their first lookups in sharedIn
// (round sharedRound): started by the level in round at, or read by its resolver.
func (w *walker) childList(p *place, f graphql.CollectedField, u *ListUse, path string, at int, sharedIn *batch, sharedRound int) {
	if u.Plain && w.ex.Starts(u.Field) {
		w.list(f, u.Field, u.Args.First, path, at, p.g, p.m, sharedIn, sharedRound)
		return
	}
	w.resolverList(p, f, u.Field, path, sharedIn, sharedRound)
}
