package planner

import (
	"github.com/99designs/gqlgen/graphql"

	"singletable/repository/hr"
)

// A group is the objects of whole levels read ahead together (the loaders' ReadAhead): a root
// level, a list's page, the elements of the lists a level starts. Their lists start in the round
// after r0; their lookups go in one batch per step (step k in round r0+1+k: to-one fields and
// relation items, then relation targets with the relations selected on them, then those
// targets), and their resolvers run once every step but the last is back. g is how many times
// that happens, for separate groups of objects.
//
// A merged group is the elements of inverse-relation lists: read by key in round r0 in one batch
// (batch[0]) together with their step 0, so that step k is in round r0+k.
type group struct {
	r0, g  int
	merged bool
	steps  int
	batch  [3]*batch
}

// round is the round of step k of the group's lookups.
func (gr *group) round(k int) int {
	if gr.merged {
		return gr.r0 + k
	}
	return gr.r0 + 1 + k
}

// resolveRound is the round after which the group's objects resolve: the last step waited for.
func (gr *group) resolveRound() int {
	if gr.merged {
		return gr.r0 + max(gr.steps-2, 0)
	}
	return gr.r0 + gr.steps - 1
}

// stepBatch is the batch of step k of gr's lookups.
func (w *walker) stepBatch(gr *group, k int) *batch {
	if gr.batch[k] == nil {
		gr.batch[k] = w.newBatch(gr.round(k), gr.g)
	}
	return gr.batch[k]
}

// ahead walks places read ahead as one group.
func (w *walker) ahead(gr *group, places ...*place) {
	gr.steps = 1
	for _, p := range places {
		gr.steps = max(gr.steps, p.level.Steps())
		if p.comb != nil {
			gr.steps = max(gr.steps, p.comb.Nodes.Steps())
		}
	}
	for _, p := range places {
		p.resolve = gr.resolveRound()
		w.aheadPlace(gr, p)
	}
}

// aheadPlace walks the fields of one place of group gr.
func (w *walker) aheadPlace(gr *group, p *place) {
	lists := p.level.Lists()
	li := 0
	for fr := range w.rows(p) {
		switch fr.row.Kind {
		case ToOne, Items:
			// Its key comes from the object's item: in a merged group that item is read in the
			// group's own batch (step 0), so the lookup waits for it, one step later.
			k := 0
			if gr.merged {
				k = 1
			}
			w.toOne(p, fr, func() *batch { return w.stepBatch(gr, k) }, max(gr.round(k), p.resolve))
		case Relation:
			w.aheadRelation(gr, p, fr.f, fr.row, fr.path)
		case List:
			if li < len(lists) {
				w.aheadList(gr, p, fr.f, lists[li], fr.path)
				li++
			}
		}
	}
}

// aheadRelation is relation f of p's objects read ahead: its items at step 0, its targets with
// the relations selected on them at step 1, those relations' targets at step 2.
func (w *walker) aheadRelation(gr *group, p *place, f graphql.CollectedField, row *Field, path string) {
	if p.once(row.Rel) {
		w.lookup(w.stepBatch(gr, 0), path, row.Reads[0], p.m)
		w.lookup(w.stepBatch(gr, 1), path, row.Reads[1], p.m)
	}
	rels := map[hr.RelationType]*preRead{}
	for _, t := range p.level.ofTarget(row.Rel) {
		k := [2]hr.RelationType{row.Rel, t}
		pr, _ := p.seenRel(k)
		if pr == nil {
			pr = &preRead{items: w.stepBatch(gr, 1), targets: w.stepBatch(gr, 2)}
			p.seen[k] = pr
		}
		rels[t] = pr
	}
	w.resolved(w.target(p, f, row, path, p.m, max(gr.round(1), p.resolve)), rels)
}

// seenRel is the relation read ahead two levels deep for k (relation, relation of its target).
func (p *place) seenRel(k [2]hr.RelationType) (*preRead, bool) {
	if p.seen == nil {
		p.seen = map[any]any{}
	}
	pr, ok := p.seen[k].(*preRead)
	return pr, ok
}

// aheadList is list u (field f) of p's objects: read with them (p.comb: its elements are part of
// the group), started by the level (from the IDs in round p.listsAt, else in the round after the
// objects), or read by its resolver.
func (w *walker) aheadList(gr *group, p *place, f graphql.CollectedField, u *ListUse, path string) {
	if u == p.comb {
		if elems := w.elements(f, u.Field, path, p.g, p.m, u.Args.First, gr.r0, w.stepBatch(gr, 0), gr.round(0)); elems != nil {
			elems.resolve = gr.resolveRound()
			w.aheadPlace(gr, elems)
		}
		return
	}
	at := gr.r0 + 1
	if p.listsAt > 0 {
		at = p.listsAt
	}
	w.childList(p, f, u, path, at, w.stepBatch(gr, 0), gr.round(0))
}

// list is a list read for groups × parents parents at once in round at (a root list, the lists
// a level starts): one Query per parent and page, then its elements read ahead as a group. The
// lists' parent level looked up what their elements share in sharedIn.
func (w *walker) list(f graphql.CollectedField, row *Field, first int, path string, at, groups, parents int, sharedIn *batch, sharedRound int) {
	if first <= 0 {
		return // its resolver refuses the page size: nothing is read
	}
	if row.GathersLevel {
		w.gathered(f, row, first, path, at, groups, parents, sharedIn, sharedRound)
		return
	}
	w.calls(path, row.Reads[0], at, groups*parents*w.callsPerPage(row.Reads[0]), true)
	if elems := w.elements(f, row, path, groups, parents, first, at, sharedIn, sharedRound); elems != nil {
		w.ahead(&group{r0: at, g: groups}, elems)
	}
}

// gathered is an inverse-relation list: its Queries in round at, then every element of the
// level's lists by key, with their first lookups, in the round after.
func (w *walker) gathered(f graphql.CollectedField, row *Field, first int, path string, at, groups, parents int, sharedIn *batch, sharedRound int) {
	w.calls(path, row.Reads[0], at, groups*parents*w.callsPerPage(row.Reads[0]), true)
	members := w.newBatch(at+1, groups)
	w.lookup(members, path, row.Reads[1], parents*first)
	if elems := w.elements(f, row, path, groups, parents, first, at+1, sharedIn, sharedRound); elems != nil {
		gr := &group{r0: at + 1, g: groups, merged: true}
		gr.batch[0] = members
		w.ahead(gr, elems)
	}
}

// resolverList is a list its resolver reads when its parent object resolves: one Query per
// parent, each list on its own, its elements then prefetched. The lists' parent level looked up
// what their elements share in sharedIn (nil: none did).
func (w *walker) resolverList(p *place, f graphql.CollectedField, row *Field, path string, sharedIn *batch, sharedRound int) {
	first := row.firstOf(f.ArgumentMap(w.vars))
	if first == 0 {
		return
	}
	at, lists := p.resolve+1, p.g*p.m
	if row.GathersLevel {
		w.gathered(f, row, first, path, at, lists, 1, sharedIn, sharedRound)
		return
	}
	w.calls(path, row.Reads[0], at, lists*w.callsPerPage(row.Reads[0]), true)
	if elems := w.elements(f, row, path, lists, 1, first, at, sharedIn, sharedRound); elems != nil {
		w.prefetched(elems)
	}
}

// elements is the place of the elements of list field f (row), read in round read: groups × the
// pages of parents lists of up to first elements; nil when the operation selects no element.
func (w *walker) elements(f graphql.CollectedField, row *Field, path string, groups, parents, first, read int, sharedIn *batch, sharedRound int) *place {
	sels, typ := w.plan.nodeSelections(f)
	if typ == "" {
		return nil
	}
	return &place{path: w.elementsPath(f, path), typ: typ, sels: sels, level: w.plan.NodesOf(f), g: groups, m: parents * first,
		read: read, resolve: read, list: row, parents: parents, sharedIn: sharedIn, sharedRound: sharedRound}
}
