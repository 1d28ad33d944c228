package planner

import (
	"slices"

	"singletable/repository"
	"singletable/repository/hr"
)

// A Level is the plan of one place where objects appear in an operation (the objects a root
// lookup, a list or a to-one field returns), for objects of one type: what the operation asks of
// them that costs reads, decided once per operation from the table (Table) and the selection.
//
//   - Lists: the child lists asked for on each object, every occurrence with its row and, in the
//     plain form (first page), its typed arguments: the resolvers start these for every object of
//     the level at once (or from the objects' IDs, before they are read), and each list's own
//     resolver then finds its read under way.
//   - Combined: the list read together with an object asked for by ID, in one call.
//   - Lookups: the keys the selected to-one fields, items and relations need, step by step; the
//     loaders call it when the level is read (it implements their Level with the resolvers'
//     Start).
//
// A Level is comparable by identity: a list's key holds the level of its elements, so that the
// list a level starts and the list its resolver asks for are one read.
type Level struct {
	// Type is the object type of the level.
	Type string
	// toOne are the selected ToOne and Items fields, each with the level of what it returns.
	toOne []toOneUse
	// relations are the selected relations and, for each, the relations selected on its target
	// (manager { department }), read one step further.
	relations []relationAhead
	// lists are the selected child lists (List fields), one per occurrence.
	lists []*ListUse
	// combined is the list read together with the object by ID; nil for none.
	combined *ListUse
	// shared are the selected to-one fields whose key every object of the level (the elements of
	// a list) shares with the others: the parent level looks them up once (ListParentKeys), and
	// follows what they return (Targets).
	shared []sharedUse
}

// sharedUse is a selected to-one field every element of a list shares, and the level of what it
// returns.
type sharedUse struct {
	name   string
	target *Level
}

// A ListUse is one occurrence of a child list in a level's selection.
type ListUse struct {
	// Field is the list's row (the variant its arguments select).
	Field *Field
	// Alias is the occurrence's response key (the field's name when not aliased): the combined
	// read of an object is for exactly one occurrence.
	Alias string
	// Args are the typed arguments of the plain form; Plain is false for another form (a later
	// page), which is read by its own resolver only.
	Args  ListArgs
	Plain bool
	// Nodes is the level of the list's elements.
	Nodes *Level
}

// toOneUse is a selected ToOne or Items field and the level of the objects it returns (one per
// selection of it: two aliases with other selections are two uses).
type toOneUse struct {
	field  *Field
	target *Level
	// primed says the read of the list the objects are elements of answers the field already (an
	// order's items come with the orders): nothing to look up, only its level to follow.
	primed bool
}

// relationAhead is a selected relation, the relations selected on its target, and the levels of
// its target's selections (what the targets need once read: their to-one fields, their lists).
type relationAhead struct {
	rel      hr.RelationType
	ofTarget []hr.RelationType
	targets  []*Level
}

// Lists are the occurrences of child lists selected on the level's objects.
func (l *Level) Lists() []*ListUse {
	if l == nil {
		return nil
	}
	return l.lists
}

// Combined is the list read together with an object of the level asked for by ID (its parent
// row's Combined read), if any.
func (l *Level) Combined() (*ListUse, bool) {
	if l == nil || l.combined == nil {
		return nil, false
	}
	return l.combined, true
}

// Steps is how many steps of Lookups the level has: 1, or 3 when it reads relations (the relation
// items, their targets and the targets' own relations, then those relations' targets).
func (l *Level) Steps() int {
	if l == nil {
		return 0
	}
	if len(l.relations) > 0 {
		return 3
	}
	return 1
}

// Lookups are the keys to look up for the level's objects at step n: at step 0, objects are the
// level's objects and the keys those of their selected to-one fields and items, of their selected
// relations' items (AP10), and of the to-one fields every element of their child lists shares
// (Field.SameForAll); at step 1, found is what step 0 found, and the keys are the targets of the
// relation items among it and the relation items selected on those targets; at step 2 the
// targets of those. nil when there is nothing more.
func (l *Level) Lookups(n int, found []repository.Entity) []repository.Key {
	if l == nil {
		return nil
	}
	switch n {
	case 0:
		return l.objectLookups(found)
	case 1:
		return l.relationTargets(found, true)
	case 2:
		return l.relationTargets(found, false)
	}
	return nil
}

// objectLookups are step 0 of Lookups.
func (l *Level) objectLookups(objects []repository.Entity) []repository.Key {
	var keys []repository.Key
	for _, u := range l.toOne {
		f := u.field
		if f.Keys == nil || u.primed {
			continue // objects that are not items (a ranking's entries): their resolvers look up
		}
		for _, o := range objects {
			keys = f.Keys(keys, o)
		}
	}
	for _, r := range l.relations {
		for _, o := range objects {
			if e, ok := o.(*hr.Employee); ok {
				if k, err := hr.RelationKey(e.ID, r.rel); err == nil {
					keys = append(keys, k)
				}
			}
		}
	}
	return append(keys, l.ListParentKeys(objects)...)
}

// ListParentKeys are the lookups the elements of the child lists of objects (the level's
// objects) will make whatever the lists' Queries return (Field.SameForAll): sent when the lists
// start, they share the round of the Queries. A shared key that is the parent's own needs no
// lookup: the parent was read.
func (l *Level) ListParentKeys(objects []repository.Entity) []repository.Key {
	var keys []repository.Key
	for _, u := range l.lists {
		if u.Nodes == nil {
			continue // no element selected
		}
		for _, sh := range u.Nodes.shared {
			if key, ok := u.Field.sameForAll(sh.name); ok {
				if key == nil {
					continue // the parent's own key: read already
				}
				for _, o := range objects {
					keys = key(keys, o)
				}
			}
		}
	}
	return keys
}

// relationTargets are the keys of what the relation items among found point at and, at the
// first step (further), of the relations selected on those targets.
func (l *Level) relationTargets(found []repository.Entity, further bool) []repository.Key {
	var keys []repository.Key
	for _, e := range found {
		rel, ok := e.(*hr.Relation)
		if !ok {
			continue
		}
		if k, err := rel.TargetKey(); err == nil {
			keys = append(keys, k)
		}
		if !further {
			continue
		}
		for _, r := range l.relations {
			if r.rel != rel.Type {
				continue
			}
			for _, t := range r.ofTarget {
				if k, err := hr.RelationKey(rel.TargetID, t); err == nil {
					keys = append(keys, k)
				}
			}
		}
	}
	return keys
}

// ofTarget are the relations selected on the targets of relation rel (read ahead with them).
func (l *Level) ofTarget(rel hr.RelationType) []hr.RelationType {
	if l == nil {
		return nil
	}
	for _, r := range l.relations {
		if r.rel == rel {
			return r.ofTarget
		}
	}
	return nil
}

// addRelation records a selected relation and what its target's selection asks for.
func (l *Level) addRelation(rel hr.RelationType, target *Level) {
	var of []hr.RelationType
	for _, r := range target.relations {
		of = append(of, r.rel)
	}
	for i := range l.relations {
		if l.relations[i].rel == rel {
			for _, r := range of {
				if !slices.Contains(l.relations[i].ofTarget, r) {
					l.relations[i].ofTarget = append(l.relations[i].ofTarget, r)
				}
			}
			l.relations[i].targets = appendNew(l.relations[i].targets, target)
			return
		}
	}
	l.relations = append(l.relations, relationAhead{rel: rel, ofTarget: of, targets: []*Level{target}})
}

// RelationTargets are what the level's selected relations point at once step n of Lookups has
// read them (found answers the relation items and their targets), grouped by the level of each
// relation's selection: at step 1 the targets of the level's relations, at step 2 the targets of
// the relations selected on those (manager { department }). The loaders read ahead what they need
// (their to-one fields, their lists) before the step's callers are released, as for a to-one
// field's targets, never when the first target resolves. A level that asks for no read is left
// out.
func (l *Level) RelationTargets(n int, objects []repository.Entity, found func(repository.Key) (repository.Entity, bool)) []TargetObjects {
	if l == nil || n < 1 || n > 2 {
		return nil
	}
	var g targetGroups
	for _, r := range l.relations {
		for _, target := range r.targets {
			if n == 1 && !target.readsAhead() {
				continue
			}
			i := g.group(target)
			for _, o := range objects {
				g.add(i, relationTarget(o, r.rel, found), found)
			}
		}
	}
	targets := slices.DeleteFunc(g.out, func(t TargetObjects) bool { return len(t.Objects) == 0 })
	if n == 1 {
		return targets
	}
	// Step 2 read what the relations selected on the targets point at: the targets' own step 1.
	var out []TargetObjects
	for _, t := range targets {
		out = append(out, t.Level.RelationTargets(1, t.Objects, found)...)
	}
	return out
}

// relationTarget is the key of what relation rel of employee o points at, if found holds its
// relation item.
func relationTarget(o repository.Entity, rel hr.RelationType, found func(repository.Key) (repository.Entity, bool)) []repository.Key {
	e, ok := o.(*hr.Employee)
	if !ok {
		return nil
	}
	k, err := hr.RelationKey(e.ID, rel)
	if err != nil {
		return nil
	}
	item, ok := found(k)
	if !ok {
		return nil
	}
	r, ok := item.(*hr.Relation)
	if !ok {
		return nil
	}
	t, err := r.TargetKey()
	if err != nil {
		return nil
	}
	return []repository.Key{t}
}

// addToOne records a selected ToOne or Items field and the level of what it returns; primed when
// the objects' own read answers it.
func (l *Level) addToOne(f *Field, target *Level, primed bool) {
	l.toOne = appendNew(l.toOne, toOneUse{field: f, target: target, primed: primed})
}

// appendNew is s with v appended unless it holds it already.
func appendNew[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// Targets are the objects the level's to-one fields and items return, grouped by the level of each
// field's selection: found answers a key the level's lookups (Lookups(0, objects)) read, or that
// the objects' own read primed, false when nothing was read there. Every object of a level reaches its to-one fields' targets at once, so
// each group is the whole level of its place: the loaders read what it needs ahead as soon as
// these lookups are back (its own to-one fields, its child lists), one batch per step, never by
// a timer. A target level that asks for no read is left out.
func (l *Level) Targets(objects []repository.Entity, found func(repository.Key) (repository.Entity, bool)) []TargetObjects {
	if l == nil {
		return nil
	}
	var g targetGroups
	for _, u := range l.toOne {
		if u.field.Keys == nil || !u.target.readsAhead() {
			continue
		}
		i := g.group(u.target)
		for _, o := range objects {
			g.add(i, u.field.Keys(nil, o), found)
		}
	}
	l.sharedTargets(objects, found, &g)
	return slices.DeleteFunc(g.out, func(t TargetObjects) bool { return len(t.Objects) == 0 })
}

// sharedTargets adds to g (Targets) what the to-one fields shared by the elements of the
// objects' child lists return (Field.SameForAll: the parent itself, when the key is its own, or
// what ListParentKeys looked up), grouped by the levels of those fields' selections: a ticket's
// reporter { organization } is then read ahead with its level, never looked up alone when the
// first ticket resolves.
func (l *Level) sharedTargets(objects []repository.Entity, found func(repository.Key) (repository.Entity, bool), g *targetGroups) {
	for _, u := range l.lists {
		if u.Nodes == nil {
			continue
		}
		for _, sh := range u.Nodes.shared {
			key, ok := u.Field.sameForAll(sh.name)
			if !ok || !sh.target.readsAhead() {
				continue
			}
			i := g.group(sh.target)
			for _, o := range objects {
				if key == nil {
					g.add(i, []repository.Key{o.Key()}, found) // the list's parent itself
				} else {
					g.add(i, key(nil, o), found)
				}
			}
		}
	}
}

// targetGroups gather Targets' objects by the level of their place; an object two parents share
// is one object of its group.
type targetGroups struct {
	out  []TargetObjects
	seen []map[repository.Key]bool
}

// group is the index of level's group, added when new.
func (g *targetGroups) group(level *Level) int {
	if i := slices.IndexFunc(g.out, func(t TargetObjects) bool { return t.Level == level }); i >= 0 {
		return i
	}
	g.out, g.seen = append(g.out, TargetObjects{Level: level}), append(g.seen, map[repository.Key]bool{})
	return len(g.out) - 1
}

// add adds to group i what found answers of keys.
func (g *targetGroups) add(i int, keys []repository.Key, found func(repository.Key) (repository.Entity, bool)) {
	for _, k := range keys {
		if e, ok := found(k); ok && !g.seen[i][k] {
			g.seen[i][k] = true
			g.out[i].Objects = append(g.out[i].Objects, e)
		}
	}
}

// TargetsOf are the levels of the selections of to-one field name on the level's objects (one per
// selection: two aliases with other selections are two), for a place that looks the field's
// objects up itself (a ranking's entries name their reps) and reads ahead what they need.
func (l *Level) TargetsOf(name string) []*Level {
	if l == nil {
		return nil
	}
	var out []*Level
	for _, u := range l.toOne {
		if u.field.Name == name && u.target != nil {
			out = appendNew(out, u.target)
		}
	}
	return out
}

// TargetObjects are objects of one level that a level's to-one fields returned.
type TargetObjects struct {
	Level   *Level
	Objects []repository.Entity
}

// readsAhead reports whether the level asks for anything to read once its objects are there.
func (l *Level) readsAhead() bool {
	return l != nil && (len(l.toOne) > 0 || len(l.relations) > 0 || len(l.lists) > 0)
}
