package loaders

import (
	"context"
	"strings"
	"time"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/hr"
)

// relation looks up employee e's relationship item of type rel at its known key (AP10), batched
// with every other key lookup of the level: the department, manager and mentor relations of all
// the employees of a page share one BatchGetItem. It returns nil when the employee has no such
// relation.
func (l *Loaders) relation(ctx context.Context, e string, rel hr.RelationType) (*hr.Relation, error) {
	k, err := hr.RelationKey(e, rel)
	if err != nil {
		return nil, err
	}
	r, err := load[*hr.Relation](ctx, l, k, "relation")
	if apperr.CodeOf(err) == apperr.CodeNotFound {
		return nil, nil
	}
	return r, err
}

// DepartmentOf is an employee's department (AP10): its DEPARTMENT relation item, then the
// department, each a batched key lookup. Every employee has a department, so a missing relation
// is NOT_FOUND.
func (l *Loaders) DepartmentOf(ctx context.Context, employee string) (*hr.Department, error) {
	rel, err := l.relation(ctx, employee, hr.RelDepartment)
	if err != nil {
		return nil, err
	}
	if rel == nil {
		return nil, apperr.NotFound("department")
	}
	k, err := rel.TargetKey()
	if err != nil {
		return nil, err
	}
	return load[*hr.Department](ctx, l, k, "department")
}

// Related is the employee an employee's MANAGER or MENTOR relation points at (AP10): nil when
// the employee has none, NOT_FOUND ("manager not found") when the relation points at an employee
// that does not exist.
func (l *Loaders) Related(ctx context.Context, employee string, rel hr.RelationType) (*hr.Employee, error) {
	r, err := l.relation(ctx, employee, rel)
	if err != nil || r == nil {
		return nil, err
	}
	k, err := hr.EmployeeKey(r.TargetID)
	if err != nil {
		return nil, err
	}
	return load[*hr.Employee](ctx, l, k, strings.ToLower(string(rel)))
}

// Departments lists departments by name (AP7), primes them and reads ahead what their level
// needs (their locations, when asked for).
func (l *Loaders) Departments(ctx context.Context, args repository.PageArgs, level Level) (repository.Page[*hr.Department], error) {
	return l.lists.departments.load(ctx, listPageOf(args, level))
}

// EmployeesByJobTitle pages through the employees with a job title (AP12) and primes them.
func (l *Loaders) EmployeesByJobTitle(ctx context.Context, title string, args repository.PageArgs, level Level) (repository.Page[*hr.Employee], error) {
	return l.lists.employeesBy.load(ctx, employeesByKey{jobTitle: title, listPage: listPageOf(args, level)})
}

// EmployeesByName pages through the employees with a name (AP30) and primes them.
func (l *Loaders) EmployeesByName(ctx context.Context, name string, args repository.PageArgs, level Level) (repository.Page[*hr.Employee], error) {
	return l.lists.employeesBy.load(ctx, employeesByKey{name: name, byName: true, listPage: listPageOf(args, level)})
}

// EmployeesHiredSince pages through the employees hired since a time, newest first (AP13), and
// primes them.
func (l *Loaders) EmployeesHiredSince(ctx context.Context, since time.Time, args repository.PageArgs, level Level) (repository.Page[*hr.Employee], error) {
	return l.lists.employeesBy.load(ctx, employeesByKey{since: instantOf(&since), listPage: listPageOf(args, level)})
}

// readEmployeesBy reads a page of employees through the index its key names (rootRead then reads
// ahead what their level needs: their relations).
func (l *Loaders) readEmployeesBy(ctx context.Context, k employeesByKey) (repository.Page[*hr.Employee], error) {
	switch {
	case k.since.set:
		return l.repo.EmployeesHiredSince(ctx, *k.since.time(), k.page.args())
	case k.byName:
		return l.repo.EmployeesByName(ctx, k.name, k.page.args())
	default:
		return l.repo.EmployeesByJobTitle(ctx, k.jobTitle, k.page.args())
	}
}

// Locations pages through the locations of a country, state, city or postal code (AP14) and
// primes them.
func (l *Loaders) Locations(ctx context.Context, f hr.LocationFilter, args repository.PageArgs, level Level) (repository.Page[*hr.Location], error) {
	return l.lists.locations.load(ctx, locationsKeyOf(f, args, level))
}

func (l *Loaders) readLocations(ctx context.Context, k locationsKey) (repository.Page[*hr.Location], error) {
	return l.repo.Locations(ctx, k.filter(), k.page.args())
}

// EmployeesOfDepartment pages through a department's employees (AP9).
func (l *Loaders) EmployeesOfDepartment(ctx context.Context, department string, args repository.PageArgs, level Level) (repository.Page[*hr.Employee], error) {
	return l.InverseList(ctx, hr.RelDepartment, department, args, level)
}

// DirectReports pages through the employees an employee manages (AP11).
func (l *Loaders) DirectReports(ctx context.Context, manager string, args repository.PageArgs, level Level) (repository.Page[*hr.Employee], error) {
	return l.InverseList(ctx, hr.RelManager, manager, args, level)
}

// Mentees pages through the employees an employee mentors (AP11).
func (l *Loaders) Mentees(ctx context.Context, mentor string, args repository.PageArgs, level Level) (repository.Page[*hr.Employee], error) {
	return l.InverseList(ctx, hr.RelMentor, mentor, args, level)
}

// InverseList pages through the employees whose relation of type rel points at target (AP9,
// AP11).
func (l *Loaders) InverseList(ctx context.Context, rel hr.RelationType, target string, args repository.PageArgs, level Level) (repository.Page[*hr.Employee], error) {
	return l.lists.inverse.load(ctx, relListKey{rel: rel, target: target, listPage: listPageOf(args, level)})
}

// StartInverseLists starts the inverse-relation lists of type rel of targets (a department's
// employees, a manager's reports), every parent of a level, as one batch: their Queries run
// concurrently, then every employee of the level is looked up in one batch. InverseList with the
// same arguments then waits for them.
func (l *Loaders) StartInverseLists(ctx context.Context, rel hr.RelationType, targets []string, args repository.PageArgs, level Level) {
	l.lists.inverse.startAll(ctx, keysOf(targets, func(t string) relListKey {
		return relListKey{rel: rel, target: t, listPage: listPageOf(args, level)}
	}))
}
