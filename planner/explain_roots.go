package planner

import (
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"singletable/repository"
)

// query walks a query's root fields: the root lookups are one level read in round 1 (one batch
// of every key, the combined reads, the lists that follow from the IDs) and read ahead together;
// each root list is a page of its own.
func (w *walker) query() {
	op := w.plan.op
	keys := w.newBatch(1, 1)
	var places []*place
	for _, f := range w.plan.collect(op.Operation.SelectionSet, "Query") {
		if !w.allowed("Query", f) {
			continue
		}
		row := FieldOf("Query", f.Name)
		if row == nil {
			continue
		}
		switch row.Kind {
		case Lookup:
			places = append(places, w.rootLookup(f, row, keys)...)
		case List:
			w.rootList(f, row)
		}
	}
	w.ahead(&group{r0: 1, g: 1}, places...)
}

// allowed reports whether root field f of object (Query, Mutation) reads or writes: false for a
// field the caller may not use (FORBIDDEN, recorded as its error) and for an introspection
// field, which reads nothing.
func (w *walker) allowed(object string, f graphql.CollectedField) bool {
	if err := w.ex.Allowed(object, f.Name); err != nil {
		w.fail(ast.Path{ast.PathName(f.Alias)}, err)
		return false
	}
	return !strings.HasPrefix(f.Name, "__")
}

// rootKind is the place of a root lookup's objects of one type and decision.
type rootKind struct {
	typ       string
	afterRead bool
}

// rootLookup is root lookup f: the IDs whose errors are recorded read nothing; the others are
// read in round 1, by key in batch keys or with their combined list, one place per type (and
// decision). An object whose ID decides its scope has its lists started from the ID, in round 1.
func (w *walker) rootLookup(f graphql.CollectedField, row *Field, keys *batch) []*place {
	reads, err := w.ex.Roots(f, row)
	if err != nil {
		w.fail(ast.Path{ast.PathName(f.Alias)}, err)
		return nil
	}
	_, many := f.ArgumentMap(w.vars)["ids"]
	byKind := map[rootKind]*place{}
	var places []*place
	seen := map[string]bool{}
	for i, rd := range reads {
		if rd.Err != nil {
			path := ast.Path{ast.PathName(f.Alias)}
			if many {
				path = append(path, ast.PathIndex(i))
			}
			w.fail(path, rd.Err)
			continue
		}
		if seen[rd.Key] {
			continue // read once
		}
		seen[rd.Key] = true
		k := rootKind{rd.Type, rd.AfterRead}
		p := byKind[k]
		if p == nil {
			p = w.rootPlace(f, rd, many)
			byKind[k] = p
			places = append(places, p)
		}
		p.m++
	}
	for _, p := range places {
		if p.comb != nil {
			w.calls(p.path, *p.comb.Field.Combined, 1, p.m, p.comb.Field.Kind == List)
		} else {
			w.lookup(keys, p.path, ByKey[p.typ], p.m)
		}
	}
	return places
}

// rootPlace is the place of the objects of root lookup f with rd's type and decision.
func (w *walker) rootPlace(f graphql.CollectedField, rd RootRead, many bool) *place {
	p := &place{path: w.pathOf("", f), typ: rd.Type, sels: f.Selections, level: w.plan.ObjectsOf(f, rd.Type), g: 1, read: 1, resolve: 1}
	if !rd.AfterRead {
		p.listsAt = 1
		if u, ok := p.level.Combined(); ok && (!many || !u.Field.OneParent) {
			p.comb = u
		}
	}
	return p
}

// rootList is root list f: one page, or the caller's one object read by key where the list is
// narrowed to it; its elements are read ahead as a level of their own.
func (w *walker) rootList(f graphql.CollectedField, row *Field) {
	args := f.ArgumentMap(w.vars)
	path := w.pathOf("", f)
	if !w.ex.Narrowed(row) {
		w.list(f, row, FirstArg(args), path, 1, 1, 1, nil, 0)
		return
	}
	if FirstArg(args) == 0 || args["after"] != nil {
		return // refused, or the empty page after the one object
	}
	w.lookup(w.newBatch(1, 1), path, ByKey[row.Of], 1)
	if elems := w.elements(f, row, path, 1, 1, 1, 1, nil, 0); elems != nil {
		w.ahead(&group{r0: 1, g: 1}, elems)
	}
}

// mutation walks a mutation's fields, one after another as they run: each field's writes
// (Mutations), then the reads of its result, whose objects what the write returned answers in
// part (Mutation.Returns).
func (w *walker) mutation() {
	op := w.plan.op
	at := 0
	for _, f := range w.plan.collect(op.Operation.SelectionSet, "Mutation") {
		if !w.allowed("Mutation", f) {
			continue
		}
		m, ok := Mutations[f.Name]
		if !ok {
			continue
		}
		at = w.writes(f, m, at)
		p := &place{path: w.pathOf("", f), typ: f.Definition.Type.Name(), sels: f.Selections, g: 1, m: 1, read: at, resolve: at}
		rels := map[repository.RelationType]*preRead{}
		for _, name := range m.Returns {
			if row := FieldOf(p.typ, name); row != nil && row.Kind == Relation {
				rels[row.Rel] = &preRead{}
			} else {
				p.free = append(p.free, name)
			}
		}
		w.resolved(p, rels)
		at = max(at, w.out.MaxRounds)
	}
}
