package planner

import (
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"singletable/repository/hr"
	"singletable/repository/saas"
	"singletable/repository/stream"
)

// query walks a query's root fields: the root lookups are one level read in round 1 (one batch
// of every key, the combined reads, the lists that follow from the IDs) and read ahead together;
// each root list is a page of its own. Older IDs that must be completed first (RootRead.Completes)
// each cost a Query before the level, one after another: the level starts that many rounds later.
func (w *walker) query() {
	op := w.plan.op
	fields := w.plan.collect(op.Operation.SelectionSet, "Query")
	r0 := 1 + w.completions(fields)
	keys := w.newBatch(r0, 1)
	var places []*place
	for _, f := range fields {
		if !w.allowed("Query", f) {
			continue
		}
		row := FieldOf("Query", f.Name)
		if row == nil {
			continue
		}
		switch row.Kind {
		case Lookup:
			places = append(places, w.rootLookup(f, row, keys, r0)...)
		case List:
			w.rootList(f, row)
		}
	}
	w.ahead(&group{r0: r0, g: 1}, places...)
}

// completions records the Queries that complete the older IDs of the root lookups among fields
// (each ID once, one round each, since each is completed before the next ID is decoded) and
// returns how many there are.
func (w *walker) completions(fields []graphql.CollectedField) int {
	seen := map[string]bool{}
	for _, f := range fields {
		row := FieldOf("Query", f.Name)
		if row == nil || row.Kind != Lookup || w.ex.Allowed("Query", f.Name) != nil {
			continue
		}
		reads, err := w.ex.Roots(f, row)
		if err != nil {
			continue
		}
		for _, rd := range reads {
			if rd.Err == nil && rd.Completes && !seen[rd.Key] {
				seen[rd.Key] = true
				w.calls(w.pathOf("", f), saas.TicketByID, len(seen), 1, false)
			}
		}
	}
	return len(seen)
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

// rootLookup is root lookup f: the IDs whose errors are recorded read nothing; the others are
// read in round r0, by key in batch keys or with their combined list, one place per type, with
// their lists started from the IDs in the same round.
func (w *walker) rootLookup(f graphql.CollectedField, row *Field, keys *batch, r0 int) []*place {
	reads, err := w.ex.Roots(f, row)
	if err != nil {
		w.fail(ast.Path{ast.PathName(f.Alias)}, err)
		return nil
	}
	_, many := f.ArgumentMap(w.vars)["ids"]
	byKind := map[string]*place{}
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
		p := byKind[rd.Type]
		if p == nil {
			p = w.rootPlace(f, rd.Type, many, r0)
			byKind[rd.Type] = p
			places = append(places, p)
		}
		p.m++
	}
	for _, p := range places {
		if p.comb != nil {
			w.calls(p.path, *p.comb.Field.Combined, r0, p.m, p.comb.Field.Kind == List)
		} else {
			w.lookup(keys, p.path, ByKey[p.typ], p.m)
		}
	}
	return places
}

// rootPlace is the place of the objects of type typ of root lookup f, read in round r0.
func (w *walker) rootPlace(f graphql.CollectedField, typ string, many bool, r0 int) *place {
	p := &place{path: w.pathOf("", f), typ: typ, sels: f.Selections, level: w.plan.ObjectsOf(f, typ), g: 1, read: r0, resolve: r0, listsAt: r0}
	if u, ok := p.level.Combined(); ok && (!many || !u.Field.OneParent) && w.ex.Allowed(u.Field.Type, u.Field.Name) == nil {
		p.comb = u // not a list the caller may not read: its parent is then read by key
	}
	return p
}

// rootList is root list f: one page, or the caller's one object read by key where the list is
// narrowed to it; its elements are read ahead as a level of their own.
func (w *walker) rootList(f graphql.CollectedField, row *Field) {
	args := f.ArgumentMap(w.vars)
	path := w.pathOf("", f)
	if !w.ex.Narrowed(row) {
		w.list(f, row, row.pageOf(args), path, 1, 1, 1, nil, 0)
		return
	}
	if row.pageOf(args) == 0 || args["after"] != nil {
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
		rels := map[hr.RelationType]*preRead{}
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

// subscription walks a subscription's root field as each of its events resolves it, once its
// arguments passed the checks it opens with: the changed object comes from the stream's image
// (no read), and its fields are read as those of an object a mutation returned. With `after`, an
// event may also be the first of a page of the change log's replay (AP33): one Query more. The plan is one
// event's: what explain answers, what the complexity limit prices when the subscription opens,
// and what each event reserves of the capacity budget.
func (w *walker) subscription() {
	op := w.plan.op
	for _, f := range w.plan.collect(op.Operation.SelectionSet, "Subscription") {
		if !w.allowed("Subscription", f) {
			continue
		}
		if err := w.ex.Subscribes(f); err != nil {
			w.fail(ast.Path{ast.PathName(f.Alias)}, err)
			continue
		}
		path := w.pathOf("", f)
		if f.ArgumentMap(w.vars)["after"] != nil {
			// A replay: its events come from pages of the change log, at most a Query each.
			w.calls(path, stream.ChangesOfScope, 1, 1, true)
		}
		for _, ef := range w.plan.collect(f.Selections, f.Definition.Type.Name()) {
			if len(ef.Selections) == 0 {
				continue // kind, previousStatus: the event's own values
			}
			p := &place{path: w.pathOf(path, ef), typ: ef.Definition.Type.Name(), sels: ef.Selections, g: 1, m: 1}
			w.resolved(p, map[hr.RelationType]*preRead{})
		}
	}
}
