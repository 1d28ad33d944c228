package loaders

import (
	"context"
	"errors"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/hr"
)

// Inverse-relation lists (AP9, AP11) take two steps: a Query of the inverted GSI1 partition for
// the relationship items, then the employees they name, by key. The employees of EVERY list of a
// level (every department of the page) are looked up in one BatchGetItem: loading each list's
// employees as soon as its own Query returns would make that depend on the Queries returning
// within the key loader's window of each other. So the lists of a level are gathered (their
// resolvers start together: their parents come from one batch or one page), all their Queries run
// concurrently, and only when every Query is back are all the employees looked up at once.
// Latency is that of the slowest Query, which the level waits for anyway.
func (l *Loaders) readInverseLists(ctx context.Context, keys []relListKey, _ bool, _ func(int, repository.Page[*hr.Employee], error)) ([]repository.Page[*hr.Employee], []error) {
	ctx, end := l.startBatch(ctx, BatchRelationLists, len(keys))
	defer end()
	pages := make([]repository.Page[*hr.Relation], len(keys))
	errs := each(len(keys), "relation list query", func(i int) (err error) {
		pages[i], err = l.repo.InverseRelations(ctx, keys[i].rel, keys[i].target, keys[i].page.args())
		return err
	})
	rels := make([][]*hr.Relation, len(keys))
	for i := range keys {
		if errs[i] == nil {
			// The relation items read are the employees' own (EMP#<e> REL#<TYPE>): primed, they
			// answer those employees' AP10 lookups of that type for free.
			prime(ctx, l, pages[i].Items...)
			rels[i] = pages[i].Items
		}
	}
	emps, empErrs := l.employeesOf(ctx, keys, rels)
	out := make([]repository.Page[*hr.Employee], len(keys))
	for i := range keys {
		if errs[i] == nil {
			out[i], errs[i] = employeePage(pages[i], emps[i], empErrs[i])
		}
	}
	return out, errs
}

// employeesOf looks up the employees of several lists of relations all at once, in one batch (or
// ⌈n/100⌉), together with the first lookups their lists' levels ask for: an employee's relation
// items have keys that follow from its id alone, so they need not wait for the employee. Then it
// starts the employees' child lists and runs the levels' further lookups (the relations' targets).
func (l *Loaders) employeesOf(ctx context.Context, keys []relListKey, lists [][]*hr.Relation) ([][]*hr.Employee, [][]error) {
	var ks []repository.Key
	var levels []LevelObjects
	for i, rels := range lists {
		stubs := make([]repository.Entity, 0, len(rels))
		ids := make([]hr.Employee, len(rels)) // the stubs' one allocation
		for j, rel := range rels {
			if k, err := hr.EmployeeKey(rel.EmployeeID); err == nil {
				ks = append(ks, k)
				ids[j].ID = rel.EmployeeID
				stubs = append(stubs, &ids[j])
			}
		}
		levels = appendLevel(levels, keys[i].level, stubs)
	}
	n := len(ks)
	var owner []int
	for i, lo := range levels {
		first := lo.Level.Lookups(0, lo.Objects)
		ks = append(ks, first...)
		for range first {
			owner = append(owner, i)
		}
	}
	found, errs := loadEach(ctx, l, ks)
	ctx = repository.NextRound(ctx) // what follows waits for the employees just read
	emps, empErrs := employeesFound(lists, found[:n], errs[:n])
	for i := range levels {
		levels[i].Objects = nil
	}
	for li, list := range emps {
		levels = appendLevel(levels, keys[li].level, entities(nonNil(list)))
	}
	steps := make([][]repository.Entity, len(levels))
	for j, e := range found[n:] {
		if e != nil {
			steps[owner[j]] = append(steps[owner[j]], e)
		}
	}
	l.readAheadEmployees(ctx, levels, steps)
	return emps, empErrs
}

// readAheadEmployees reads ahead for the employees of inverse lists once they are read, their
// levels' step 0 read with them from their IDs alone (steps: what it found). What only the
// employees' own items name (a to-one field's key: their warehouse) could not join that batch: it
// is reserved now, with their child lists started, in the one batch that also holds step 1 (the
// relations' targets), so the level's next round is one batch, as its plan says.
func (l *Loaders) readAheadEmployees(ctx context.Context, levels []LevelObjects, steps [][]repository.Entity) {
	if _, batched := l.byKey.(batchedKeys); !batched {
		l.readAheadFrom(ctx, levels, 1, steps)
		return
	}
	b := l.newKeyBatch(ctx)
	for _, lo := range levels {
		if lo.Level == nil || len(lo.Objects) == 0 {
			continue
		}
		lo.Level.Start(ctx, lo.Objects)
		b.reserveLevel(ctx, lo.Level, lo.Objects)
	}
	l.readAheadIn(ctx, b, levels, 1, steps)
}

// employeesFound sorts the employees found for lists of relations back into their lists, in
// order: a missing employee is NOT_FOUND at its place.
func employeesFound(lists [][]*hr.Relation, found []repository.Entity, errs []error) ([][]*hr.Employee, [][]error) {
	emps := make([][]*hr.Employee, len(lists))
	empErrs := make([][]error, len(lists))
	i := 0
	for li, rels := range lists {
		emps[li] = make([]*hr.Employee, len(rels))
		empErrs[li] = make([]error, len(rels))
		for j, rel := range rels {
			k, err := hr.EmployeeKey(rel.EmployeeID)
			if err != nil {
				empErrs[li][j] = err
				continue
			}
			e, ok := found[i].(*hr.Employee)
			switch {
			case errors.Is(errs[i], errMissing):
				empErrs[li][j] = apperr.NotFound("employee")
			case errs[i] != nil:
				empErrs[li][j] = errs[i]
			case !ok || e.Key() != k:
				empErrs[li][j] = apperr.NotFound("employee")
			default:
				emps[li][j] = e
			}
			i++
		}
	}
	return emps, empErrs
}

// nonNil is the employees of list that were found.
func nonNil(list []*hr.Employee) []*hr.Employee {
	out := make([]*hr.Employee, 0, len(list))
	for _, e := range list {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// loadEach looks many keys up at once, from the one place that holds all the keys of its level
// (fetchNow: ⌈n/100⌉ BatchGetItem calls, sent at once rather than after the loader's window, and
// shared with resolvers that ask for the same keys meanwhile). A key whose item does not exist
// gets errMissing; results are in key order.
func loadEach(ctx context.Context, l *Loaders, keys []repository.Key) ([]repository.Entity, []error) {
	out := make([]repository.Entity, len(keys))
	errs := make([]error, len(keys))
	for i, th := range l.byKey.Now(ctx, keys) {
		out[i], errs[i] = th()
	}
	return out, errs
}

// employeePage turns a page of relations into the page of the employees they name, keeping each
// relation's cursor. A relation whose employee is missing is left out: GSI1 is eventually
// consistent and may list a relation a moment before the table read sees its employee.
func employeePage(p repository.Page[*hr.Relation], emps []*hr.Employee, errs []error) (repository.Page[*hr.Employee], error) {
	out := repository.Page[*hr.Employee]{HasNextPage: p.HasNextPage, HasPreviousPage: p.HasPreviousPage}
	if len(p.Items) > 0 { // sized once, not grown: a page of n employees is two allocations
		out.Items, out.Cursors = make([]*hr.Employee, 0, len(p.Items)), make([]repository.Cursor, 0, len(p.Items))
	}
	for i := range p.Items {
		switch {
		case apperr.CodeOf(errs[i]) == apperr.CodeNotFound:
			continue
		case errs[i] != nil:
			return repository.Page[*hr.Employee]{}, errs[i]
		}
		out.Items = append(out.Items, emps[i])
		out.Cursors = append(out.Cursors, p.Cursors[i])
	}
	return out, nil
}
