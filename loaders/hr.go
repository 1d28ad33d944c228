package loaders

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/graph-gophers/dataloader/v7"

	"singletable/repository"
)

// Department looks a department up by id (AP8), batched.
func (l *Loaders) Department(ctx context.Context, id string) (*repository.Department, error) {
	k, err := repository.DepartmentKey(id)
	if err != nil {
		return nil, err
	}
	return load[*repository.Department](ctx, l, k, "department")
}

// Employee looks an employee up by id, batched.
func (l *Loaders) Employee(ctx context.Context, id string) (*repository.Employee, error) {
	k, err := repository.EmployeeKey(id)
	if err != nil {
		return nil, err
	}
	return load[*repository.Employee](ctx, l, k, "employee")
}

// Location looks a location up by its key parts (a department's location, or a global ID),
// batched.
func (l *Loaders) Location(ctx context.Context, ref repository.LocationRef) (*repository.Location, error) {
	k, err := repository.LocationKey(ref)
	if err != nil {
		return nil, err
	}
	return load[*repository.Location](ctx, l, k, "location")
}

// relation looks up employee e's relationship item of type rel at its known key (AP10), batched
// with every other key lookup of the level: the department, manager and mentor relations of all
// the employees of a page share one BatchGetItem. It returns nil when the employee has no such
// relation.
func (l *Loaders) relation(ctx context.Context, e string, rel repository.RelationType) (*repository.Relation, error) {
	k, err := repository.RelationKey(e, rel)
	if err != nil {
		return nil, err
	}
	r, err := load[*repository.Relation](ctx, l, k, "relation")
	if repository.ErrorCode(err) == repository.CodeNotFound {
		return nil, nil
	}
	return r, err
}

// DepartmentOf is an employee's department (AP10): its DEPARTMENT relation item, then the
// department, each a batched key lookup. Every employee has a department, so a missing relation
// is NOT_FOUND.
func (l *Loaders) DepartmentOf(ctx context.Context, employee string) (*repository.Department, error) {
	rel, err := l.relation(ctx, employee, repository.RelDepartment)
	if err != nil {
		return nil, err
	}
	if rel == nil {
		return nil, repository.NotFound("department")
	}
	return l.Department(ctx, rel.TargetID)
}

// Related is the employee an employee's MANAGER or MENTOR relation points at (AP10): nil when
// the employee has none, NOT_FOUND ("manager not found") when the relation points at an employee
// that does not exist.
func (l *Loaders) Related(ctx context.Context, employee string, rel repository.RelationType) (*repository.Employee, error) {
	r, err := l.relation(ctx, employee, rel)
	if err != nil || r == nil {
		return nil, err
	}
	k, err := repository.EmployeeKey(r.TargetID)
	if err != nil {
		return nil, err
	}
	return load[*repository.Employee](ctx, l, k, strings.ToLower(string(rel)))
}

// Departments lists departments by name (AP7) and primes them. With withLocations (the operation
// asks for each department's location) it also looks the locations of the page up, in one batch.
func (l *Loaders) Departments(ctx context.Context, args repository.PageArgs, withLocations bool) (repository.Page[*repository.Department], error) {
	withLocations = withLocations && l.ReadAhead()
	return memoize(&l.memo, fmt.Sprintf("depts|%d|%s|%t", args.First, args.After, withLocations), func() (repository.Page[*repository.Department], error) {
		p, err := l.repo.ListDepartments(ctx, args)
		prime(ctx, l, p.Items...)
		if err == nil && withLocations {
			keys := make([]repository.Key, 0, len(p.Items))
			for _, d := range p.Items {
				if k, err := repository.LocationKey(d.Location); err == nil {
					keys = append(keys, k)
				}
			}
			loadEach(ctx, l, keys)
		}
		return p, err
	})
}

// EmployeesByJobTitle pages through the employees with a job title (AP12) and primes them.
func (l *Loaders) EmployeesByJobTitle(ctx context.Context, title string, args repository.PageArgs, ahead EmployeeAhead) (repository.Page[*repository.Employee], error) {
	return memoize(&l.memo, fmt.Sprintf("jobtitle|%q|%d|%s|%v", title, args.First, args.After, ahead), func() (repository.Page[*repository.Employee], error) {
		p, err := l.repo.EmployeesByJobTitle(ctx, title, args)
		prime(ctx, l, p.Items...)
		if err == nil {
			l.ReadAheadRelations(ctx, p.Items, ahead)
		}
		return p, err
	})
}

// EmployeesHiredSince pages through the employees hired since a time, newest first (AP13), and
// primes them.
func (l *Loaders) EmployeesHiredSince(ctx context.Context, since time.Time, args repository.PageArgs, ahead EmployeeAhead) (repository.Page[*repository.Employee], error) {
	return memoize(&l.memo, fmt.Sprintf("hired|%s|%d|%s|%v", timeString(&since), args.First, args.After, ahead), func() (repository.Page[*repository.Employee], error) {
		p, err := l.repo.EmployeesHiredSince(ctx, since, args)
		prime(ctx, l, p.Items...)
		if err == nil {
			l.ReadAheadRelations(ctx, p.Items, ahead)
		}
		return p, err
	})
}

// Locations pages through the locations of a country, state, city or postal code (AP14) and
// primes them.
func (l *Loaders) Locations(ctx context.Context, f repository.LocationFilter, args repository.PageArgs) (repository.Page[*repository.Location], error) {
	key := fmt.Sprintf("locations|%q|%q|%q|%q|%d|%s", f.Country, ptrString(f.State), ptrString(f.City), ptrString(f.PostalCode), args.First, args.After)
	return memoize(&l.memo, key, func() (repository.Page[*repository.Location], error) {
		p, err := l.repo.Locations(ctx, f, args)
		prime(ctx, l, p.Items...)
		return p, err
	})
}

// EmployeesOfDepartment pages through a department's employees (AP9).
func (l *Loaders) EmployeesOfDepartment(ctx context.Context, department string, args repository.PageArgs, ahead EmployeeAhead) (repository.Page[*repository.Employee], error) {
	return l.inverse(ctx, repository.RelDepartment, department, args, ahead)
}

// StartEmployeesOfDepartment starts loading a department's employee list without waiting for it,
// so that its Query runs while the department itself is looked up; EmployeesOfDepartment with the
// same arguments later finds it.
func (l *Loaders) StartEmployeesOfDepartment(ctx context.Context, department string, args repository.PageArgs, ahead EmployeeAhead) {
	if l.perParent {
		return
	}
	l.relLists.Load(ctx, relListKey{rel: repository.RelDepartment, target: department, first: pageSize(args.First), after: args.After, ahead: ahead})
}

// pageSize is the page size a list key uses: 0 (not given) is the default, so that a list started
// ahead and the resolver's own request find the same key.
func pageSize(first int) int {
	if first == 0 {
		return repository.DefaultPageSize
	}
	return first
}

// DirectReports pages through the employees an employee manages (AP11).
func (l *Loaders) DirectReports(ctx context.Context, manager string, args repository.PageArgs, ahead EmployeeAhead) (repository.Page[*repository.Employee], error) {
	return l.inverse(ctx, repository.RelManager, manager, args, ahead)
}

// Mentees pages through the employees an employee mentors (AP11).
func (l *Loaders) Mentees(ctx context.Context, mentor string, args repository.PageArgs, ahead EmployeeAhead) (repository.Page[*repository.Employee], error) {
	return l.inverse(ctx, repository.RelMentor, mentor, args, ahead)
}

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

// relListKey is one page of one inverse-relation list, and what to read ahead for its employees.
type relListKey struct {
	rel    repository.RelationType
	target string
	first  int
	after  string
	ahead  EmployeeAhead
}

// Inverse-relation lists (AP9, AP11) take two steps: a Query of the inverted GSI1 partition for
// the relationship items, then the employees they name, by key. DESIGN.md §5 wants the employees
// of EVERY list of a level (every department of the page) in one BatchGetItem. Loading each list's
// employees as soon as its own Query returns would make that depend on the Queries returning
// within the key loader's window of each other. So the lists of a level are batched too: their
// resolvers start together (their parents come from one batch or one page), relLists collects
// them, runs all their Queries concurrently, and only when every Query is back looks all the
// employees up at once. Latency is that of the slowest Query, which the level waits for anyway.
func newRelListLoader(l *Loaders, wait time.Duration) *dataloader.Loader[relListKey, repository.Page[*repository.Employee]] {
	if wait <= 0 {
		wait = DefaultWait
	}
	return dataloader.NewBatchedLoader(l.batchRelLists,
		dataloader.WithWait[relListKey, repository.Page[*repository.Employee]](wait))
}

func (l *Loaders) inverse(ctx context.Context, rel repository.RelationType, target string, args repository.PageArgs, ahead EmployeeAhead) (repository.Page[*repository.Employee], error) {
	if l.perParent {
		// Per-parent mode: one Query, then one GetItem per employee; nothing shared or read ahead.
		p, err := l.repo.InverseRelations(ctx, rel, target, args)
		if err != nil {
			return repository.Page[*repository.Employee]{}, err
		}
		emps, errs := l.employeesOf(ctx, [][]*repository.Relation{p.Items}, []EmployeeAhead{{}})
		return employeePage(p, emps[0], errs[0])
	}
	return l.relLists.Load(ctx, relListKey{rel: rel, target: target, first: pageSize(args.First), after: args.After, ahead: ahead})()
}

func (l *Loaders) batchRelLists(ctx context.Context, keys []relListKey) []*dataloader.Result[repository.Page[*repository.Employee]] {
	ctx, end := l.startBatch(ctx, BatchRelationLists, len(keys))
	defer end()
	pages := make([]repository.Page[*repository.Relation], len(keys))
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pages[i], errs[i] = l.repo.InverseRelations(ctx, k.rel, k.target, repository.PageArgs{First: k.first, After: k.after})
		}()
	}
	wg.Wait()
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
	results := make([]*dataloader.Result[repository.Page[*repository.Employee]], len(keys))
	for i := range keys {
		if errs[i] != nil {
			results[i] = &dataloader.Result[repository.Page[*repository.Employee]]{Error: errs[i]}
			continue
		}
		p, err := employeePage(pages[i], emps[i], empErrs[i])
		results[i] = &dataloader.Result[repository.Page[*repository.Employee]]{Data: p, Error: err}
	}
	return results
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
				empErrs[li][j] = repository.NotFound("employee")
			case errs[i] != nil:
				empErrs[li][j] = errs[i]
			case !ok || e.Key() != k:
				empErrs[li][j] = repository.NotFound("employee")
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
	if l.perParent {
		for i, k := range keys {
			out[i], errs[i] = l.repo.Get(ctx, k)
		}
		return out, errs
	}
	for i, th := range l.fetchNow(ctx, keys) {
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
		case repository.ErrorCode(errs[i]) == repository.CodeNotFound:
			continue
		case errs[i] != nil:
			return repository.Page[*repository.Employee]{}, errs[i]
		}
		out.Items = append(out.Items, emps[i])
		out.Cursors = append(out.Cursors, p.Cursors[i])
	}
	return out, nil
}
