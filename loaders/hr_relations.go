package loaders

import (
	"context"
	"errors"

	"singletable/apperr"
	"singletable/repository"
)

// EmployeeAhead names the relations (AP10) that an operation asks for on every employee of a
// list. The list then looks them up itself, for all its employees at once: first the relation
// items (their keys follow from the employee ids), then the departments and employees they point
// at. Each employee's department, manager and mentor resolvers then find them in the key loader.
//
// Left to the resolvers, the lookups of one level are batched only if every resolver issues its
// lookup within the key loader's window of the first one; on a busy machine the resolvers of a
// level can take longer than that to start, and the level splits into several BatchGetItem calls.
// Issued from one place (loadEach), each step is one batch whatever the scheduler does.
//
// OfManager and OfMentor go one level further: the relations asked for on each employee's manager
// and mentor (manager { department { name } }). Their keys follow from the manager's and mentor's
// ids, known from the relation items, so they are read in the same batch as the managers and
// mentors themselves, and their targets in one more.
type EmployeeAhead struct {
	Department, Manager, Mentor bool
	OfManager, OfMentor         RelationsAhead
}

// RelationsAhead names relations (AP10) to read ahead of some employees.
type RelationsAhead struct {
	Department, Manager, Mentor bool
}

// With is a with the relation rel added.
func (a RelationsAhead) With(rel repository.RelationType) RelationsAhead {
	switch rel {
	case repository.RelDepartment:
		a.Department = true
	case repository.RelManager:
		a.Manager = true
	case repository.RelMentor:
		a.Mentor = true
	}
	return a
}

// Union is the relations a or b names.
func (a RelationsAhead) Union(b RelationsAhead) RelationsAhead {
	return RelationsAhead{a.Department || b.Department, a.Manager || b.Manager, a.Mentor || b.Mentor}
}

// Any reports whether a asks for any relation of the employees themselves.
func (a EmployeeAhead) Any() bool { return a.Department || a.Manager || a.Mentor }

func (a EmployeeAhead) relations() []repository.RelationType {
	return RelationsAhead{a.Department, a.Manager, a.Mentor}.relations()
}

func (a RelationsAhead) relations() []repository.RelationType {
	var out []repository.RelationType
	if a.Department {
		out = append(out, repository.RelDepartment)
	}
	if a.Manager {
		out = append(out, repository.RelManager)
	}
	if a.Mentor {
		out = append(out, repository.RelMentor)
	}
	return out
}

// of is what to read ahead of the target of a relation of type rel.
func (a EmployeeAhead) of(rel repository.RelationType) RelationsAhead {
	switch rel {
	case repository.RelManager:
		return a.OfManager
	case repository.RelMentor:
		return a.OfMentor
	}
	return RelationsAhead{}
}

// Inverse-relation lists (AP9, AP11) take two steps: a Query of the inverted GSI1 partition for
// the relationship items, then the employees they name, by key. The employees of EVERY list of a
// level (every department of the page) are looked up in one BatchGetItem: loading each list's
// employees as soon as its own Query returns would make that depend on the Queries returning
// within the key loader's window of each other. So the lists of a level are gathered (their
// resolvers start together: their parents come from one batch or one page), all their Queries run
// concurrently, and only when every Query is back are all the employees looked up at once.
// Latency is that of the slowest Query, which the level waits for anyway.
func (l *Loaders) readInverseLists(ctx context.Context, keys []relListKey) ([]repository.Page[*repository.Employee], []error) {
	ctx, end := l.startBatch(ctx, BatchRelationLists, len(keys))
	defer end()
	pages := make([]repository.Page[*repository.Relation], len(keys))
	errs := each(len(keys), "relation list query", func(i int) (err error) {
		pages[i], err = l.repo.InverseRelations(ctx, keys[i].rel, keys[i].target, keys[i].page.args())
		return err
	})
	rels := make([][]*repository.Relation, len(keys))
	ahead := make([]EmployeeAhead, len(keys))
	for i, k := range keys {
		if errs[i] == nil {
			// The relation items read are the employees' own (EMP#<e> REL#<TYPE>): primed, they
			// answer those employees' AP10 lookups of that type for free.
			prime(ctx, l, pages[i].Items...)
			rels[i] = pages[i].Items
		}
		ahead[i] = k.ahead
	}
	emps, empErrs := l.employeesOf(ctx, rels, ahead)
	out := make([]repository.Page[*repository.Employee], len(keys))
	for i := range keys {
		if errs[i] == nil {
			out[i], errs[i] = employeePage(pages[i], emps[i], empErrs[i])
		}
	}
	return out, errs
}

// employeesOf looks up the employees of several lists of relations all at once, in one batch (or
// ⌈n/100⌉), together with the relation items each list's ahead[i] asks for; then the targets of
// those relations, in one more batch.
func (l *Loaders) employeesOf(ctx context.Context, lists [][]*repository.Relation, ahead []EmployeeAhead) ([][]*repository.Employee, [][]error) {
	var keys []repository.Key
	for _, rels := range lists {
		for _, rel := range rels {
			if k, err := repository.EmployeeKey(rel.EmployeeID); err == nil {
				keys = append(keys, k)
			}
		}
	}
	n := len(keys)
	var list []int
	if l.ReadAhead() {
		var relKeys []repository.Key
		relKeys, list = relationKeys(lists, ahead)
		keys = append(keys, relKeys...)
	}
	found, errs := loadEach(ctx, l, keys)
	if l.ReadAhead() {
		l.readAheadTargets(ctx, found[n:], ahead, list)
	}
	emps := make([][]*repository.Employee, len(lists))
	empErrs := make([][]error, len(lists))
	i := 0
	for li, rels := range lists {
		emps[li] = make([]*repository.Employee, len(rels))
		empErrs[li] = make([]error, len(rels))
		for j, rel := range rels {
			k, err := repository.EmployeeKey(rel.EmployeeID)
			if err != nil {
				empErrs[li][j] = err
				continue
			}
			e, ok := found[i].(*repository.Employee)
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

// ReadAheadRelations looks up the relation items ahead asks for of every employee of a list, in
// one batch together with the keys in with (other lookups of the same level), and then their
// targets, in one more (see EmployeeAhead). Lists do it themselves; nodes(ids:) calls it for the
// employees it fetched.
func (l *Loaders) ReadAheadRelations(ctx context.Context, employees []*repository.Employee, ahead EmployeeAhead, with ...repository.Key) {
	if !l.ReadAhead() {
		return
	}
	rels := make([]*repository.Relation, len(employees))
	for i, e := range employees {
		rels[i] = &repository.Relation{EmployeeID: e.ID}
	}
	keys, list := relationKeys([][]*repository.Relation{rels}, []EmployeeAhead{ahead})
	found, _ := loadEach(ctx, l, append(keys, with...))
	l.readAheadTargets(ctx, found[:len(keys)], []EmployeeAhead{ahead}, list)
}

// readAheadTargets looks up, in one batch, what the relation items among found point at and,
// for a manager or mentor, the relations ahead asks for of it (found[i] belongs to a list whose
// ahead is ahead[list[i]]); then, in one more batch if any, those relations' targets.
func (l *Loaders) readAheadTargets(ctx context.Context, found []repository.Entity, ahead []EmployeeAhead, list []int) {
	keys := targetKeys(found)
	n := len(keys)
	for i, e := range found {
		rel, ok := e.(*repository.Relation)
		if !ok {
			continue
		}
		for _, t := range ahead[list[i]].of(rel.Type).relations() {
			if k, err := repository.RelationKey(rel.TargetID, t); err == nil {
				keys = append(keys, k)
			}
		}
	}
	next, _ := loadEach(ctx, l, keys)
	if len(keys) > n {
		loadEach(ctx, l, targetKeys(next[n:]))
	}
}

// relationKeys are the keys of the relation items ahead[i] asks for, of the employees of lists[i],
// and for each key the index of its list.
func relationKeys(lists [][]*repository.Relation, ahead []EmployeeAhead) ([]repository.Key, []int) {
	var keys []repository.Key
	var list []int
	for i, rels := range lists {
		for _, rel := range rels {
			for _, t := range ahead[i].relations() {
				if k, err := repository.RelationKey(rel.EmployeeID, t); err == nil {
					keys = append(keys, k)
					list = append(list, i)
				}
			}
		}
	}
	return keys, list
}

// targetKeys are the keys of what the relation items among found point at.
func targetKeys(found []repository.Entity) []repository.Key {
	var keys []repository.Key
	for _, e := range found {
		if rel, ok := e.(*repository.Relation); ok {
			if k, err := rel.TargetKey(); err == nil {
				keys = append(keys, k)
			}
		}
	}
	return keys
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
func employeePage(p repository.Page[*repository.Relation], emps []*repository.Employee, errs []error) (repository.Page[*repository.Employee], error) {
	out := repository.Page[*repository.Employee]{HasNextPage: p.HasNextPage, HasPreviousPage: p.HasPreviousPage}
	for i := range p.Items {
		switch {
		case apperr.CodeOf(errs[i]) == apperr.CodeNotFound:
			continue
		case errs[i] != nil:
			return repository.Page[*repository.Employee]{}, errs[i]
		}
		out.Items = append(out.Items, emps[i])
		out.Cursors = append(out.Cursors, p.Cursors[i])
	}
	return out, nil
}
