package loaders

import (
	"context"

	"singletable/repository"
)

// A Level is what the objects a read returns need next, as the operation's plan says
// (planner.Level, adapted by the resolvers): the keys their selected to-one fields, items and
// relations will look up, step by step, and their child lists to start. A list's key holds the
// level of its elements, so a Level must be comparable (a pointer, or a struct of one): the list a
// level starts ahead and the list its resolver then asks for are one read.
type Level interface {
	// Steps is how many steps of lookups the level has: 1 for to-one fields, more for relations
	// (an employee's manager relation, then the manager, then the manager's own relations).
	Steps() int
	// Lookups are the keys to look up at step n: for the level's objects at step 0, then for
	// what step n−1 found.
	Lookups(n int, found []repository.Entity) []repository.Key
	// Start starts the child lists of objects, all of them together: they are a whole level.
	Start(ctx context.Context, objects []repository.Entity)
	// StartsLists reports whether Start starts any list.
	StartsLists() bool
	// Targets are the objects the step-0 lookups of objects returned for their to-one fields and
	// items (found answers a key those lookups read), grouped by the level of each field's
	// selection: read ahead as soon as the lookups are back.
	Targets(objects []repository.Entity, found func(repository.Key) (repository.Entity, bool)) []LevelObjects
	// RelationTargets are what the level's relations (step 1) and the relations selected on their
	// targets (step 2) point at, grouped by the level of each relation's selection, once step n
	// has read them (found answers the relation items and the targets): read ahead at once.
	RelationTargets(n int, objects []repository.Entity, found func(repository.Key) (repository.Entity, bool)) []LevelObjects
}

// flat reports whether a level needs nothing of its whole level once its objects are read but
// lookups of one step: no child lists to start together, no relations to follow. Each of its
// lists may then be handed to its resolvers as soon as it is back, its elements' keys reserved
// in the level's batch (keyBatch).
func flat(level Level) bool { return level == nil || (!level.StartsLists() && level.Steps() <= 1) }

// LevelObjects are objects of one level that were read, and the level's plan. ListsStarted says
// their child lists were started already (from their IDs, before they were read).
type LevelObjects struct {
	Level        Level
	Objects      []repository.Entity
	ListsStarted bool
}

// ReadAhead does what the objects of whole levels need once they are read (the caller holds every
// object of each level: a root level, the lists of a level read together): it starts their child
// lists, then looks up what their selected fields ask for, every level's keys of one step in one
// batch sent at once (no window: nothing else would join it). Each batch, when back, reserves the
// next: the next step of relations, and the levels of what the to-one fields returned (keyBatch's
// follow). It never waits: the resolvers find every key under way.
func (l *Loaders) ReadAhead(ctx context.Context, levels ...LevelObjects) {
	found := make([][]repository.Entity, len(levels))
	for i, lo := range levels {
		found[i] = lo.Objects
	}
	l.readAheadFrom(ctx, levels, 0, found)
}

// readAheadFrom is ReadAhead from step n on, found[i] being what the step before found for
// levels[i] (its objects, for step 0).
func (l *Loaders) readAheadFrom(ctx context.Context, levels []LevelObjects, n int, found [][]repository.Entity) {
	steps := 0
	for _, lo := range levels {
		if lo.Level == nil || len(lo.Objects) == 0 {
			continue
		}
		if n == 0 && !lo.ListsStarted {
			lo.Level.Start(ctx, lo.Objects)
		}
		steps = max(steps, lo.Level.Steps())
	}
	if n >= steps {
		return
	}
	if _, batched := l.byKey.(batchedKeys); !batched {
		l.readAheadUnbatched(ctx, levels, n, found)
		return
	}
	l.readAheadIn(ctx, l.newKeyBatch(ctx), levels, n, found)
}

// readAheadIn is readAheadFrom's step n in batch b, which may hold other lookups of the round
// already (an inverse list's employees' own lookups): b is sent in any case, and the steps after
// n follow it.
func (l *Loaders) readAheadIn(ctx context.Context, b *keyBatch, levels []LevelObjects, n int, found [][]repository.Entity) {
	steps := 0
	for _, lo := range levels {
		if lo.Level != nil && len(lo.Objects) > 0 {
			steps = max(steps, lo.Level.Steps())
		}
	}
	asked := make([][]repository.Key, len(levels))
	for i, lo := range levels {
		if lo.Level == nil || n >= lo.Level.Steps() {
			continue
		}
		if n == 0 {
			asked[i] = b.reserveLevel(ctx, lo.Level, found[i])
			continue
		}
		asked[i] = lo.Level.Lookups(n, found[i])
		b.reserveFollowed(asked[i])
	}
	if n+1 < steps || n >= 1 {
		b.then = func(ctx context.Context, get func(repository.Key) (repository.Entity, bool)) {
			if n+1 < steps {
				next := make([][]repository.Entity, len(levels))
				for i, ks := range asked {
					for _, k := range ks {
						if e, ok := get(k); ok {
							next[i] = append(next[i], e)
						}
					}
				}
				l.readAheadFrom(ctx, levels, n+1, next)
			}
			l.readAheadRelationTargets(ctx, levels, n, get)
		}
	}
	b.send(ctx)
}

// readAheadRelationTargets reads ahead what the targets of levels' relations need (their to-one
// fields, their lists) once step n (1 or 2) has read them, before the step's callers are
// released: in one batch, whose rounds and calls are the plan's, where each target's resolvers
// would otherwise ask through the key loader's window. It comes after the level's next step is
// reserved, so what that step reads (the relations selected on the targets) is taken over, never
// read twice.
func (l *Loaders) readAheadRelationTargets(ctx context.Context, levels []LevelObjects, n int, get func(repository.Key) (repository.Entity, bool)) {
	var next []LevelObjects
	for _, lo := range levels {
		if lo.Level != nil && len(lo.Objects) > 0 {
			next = append(next, lo.Level.RelationTargets(n, lo.Objects, get)...)
		}
	}
	if len(next) > 0 {
		l.ReadAhead(ctx, next...)
	}
}

// readAheadUnbatched is readAheadFrom for a KeyFetcher of another kind (the benchmark's
// per-parent baseline, whose planner plans nothing ahead): each step through it, waiting for all
// but the last.
func (l *Loaders) readAheadUnbatched(ctx context.Context, levels []LevelObjects, n int, found [][]repository.Entity) {
	var keys []repository.Key
	var owner []int
	for i, lo := range levels {
		if lo.Level == nil || n >= lo.Level.Steps() {
			continue
		}
		ks := lo.Level.Lookups(n, found[i])
		keys = append(keys, ks...)
		for range ks {
			owner = append(owner, i)
		}
	}
	next := make([][]repository.Entity, len(levels))
	got, _ := loadEach(ctx, l, keys)
	for j, e := range got {
		if e != nil {
			next[owner[j]] = append(next[owner[j]], e)
		}
	}
	l.readAheadFrom(ctx, levels, n+1, next)
}

// prefetchAhead is ReadAhead for the objects of a list read on its own (a later page, a list no
// level started): sibling lists of its level may come, so its lookups join the key loader's
// window instead of going at once, and its child lists start as a level of their own.
func (l *Loaders) prefetchAhead(ctx context.Context, level Level, objects []repository.Entity) {
	if level == nil || len(objects) == 0 {
		return
	}
	level.Start(ctx, objects)
	l.Prefetch(ctx, level.Lookups(0, objects)...)
}

// entities is items as entities, for a Level.
func entities[T repository.Entity](items []T) []repository.Entity {
	es := make([]repository.Entity, len(items))
	for i, e := range items {
		es[i] = e
	}
	return es
}
