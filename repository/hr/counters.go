package hr

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
)

// The HR domain's counters (see counters.go): a department's employees, an employee's direct
// reports and mentees.

// relationCountAttr is the attribute that counts, on an employee, the relations of type rel that
// point at it: directReportCount for RelManager, menteeCount for RelMentor.
func relationCountAttr(rel RelationType) string {
	if rel == RelMentor {
		return attrMenteeCount
	}
	return AttrDirectReportCount
}

// EmployeeTotal is the number of the department's employees.
func (d *Department) EmployeeTotal() repository.Count {
	return repository.CountIf(d.Counted, d.EmployeeCount)
}

// DirectReportTotal is the number of employees the employee manages.
func (e *Employee) DirectReportTotal() repository.Count {
	return repository.CountIf(e.Counted, e.DirectReportCount)
}

// relationTally is the tally of the relationship items of type rel that point at a parent of type
// parent (a department's employees, a manager's direct reports), read from the inverted GSI1.
func relationTally(parent, attr string, rel RelationType, each func(context.Context, *HR, func(repository.Entity) error) error, id func(repository.Entity) string) repository.Tally {
	return repository.Tally{
		Parent: parent, Attrs: []string{attr},
		Project: []string{repository.AttrType, "relation", "targetId"},
		Of: func(it map[string]types.AttributeValue) (repository.Key, string, bool) {
			target := repository.StringAttr(it, "targetId")
			k := repository.Key{PK: relationTargetPK(rel, target), SK: relationTargetPK(rel, target)}
			return k, attr, repository.StringAttr(it, repository.AttrType) == TypeRelation && repository.StringAttr(it, "relation") == string(rel)
		},
		Each: func(ctx context.Context, r *repository.Repo, fn func(repository.Entity) error) error {
			return each(ctx, &HR{Repo: r}, fn)
		},
		Collection: func(p repository.Entity) *dynamodb.QueryInput {
			return inverseRelations[rel].Input("", relationGSI1PK(rel, id(p)))
		},
		FromIndex: true,
	}
}

const (
	attrEmployeeCount     = "employeeCount"
	AttrDirectReportCount = "directReportCount"
	// attrMenteeCount counts the employees this one mentors: it holds a removal of the mentor to
	// the mentees it unlinks, which it finds on an index that may be behind.
	attrMenteeCount = "menteeCount"
)

// Counted: a department's employees.
var _ = repository.Counted(relationTally(typeDepartment, attrEmployeeCount, RelDepartment,
	func(ctx context.Context, r *HR, fn func(repository.Entity) error) error {
		return repository.EachPage(func(a repository.PageArgs) (repository.Page[*Department], error) { return r.ListDepartments(ctx, a) }, repository.EntityFn[*Department](fn))
	},
	func(p repository.Entity) string { return p.(*Department).ID }))

// Counted: an employee's direct reports.
var _ = repository.Counted(relationTally(TypeEmployee, AttrDirectReportCount, RelManager,
	func(ctx context.Context, r *HR, fn func(repository.Entity) error) error {
		return repository.EachPage(func(a repository.PageArgs) (repository.Page[*Employee], error) {
			return r.EmployeesHiredSince(ctx, MinHireTime, a)
		}, repository.EntityFn[*Employee](fn))
	},
	func(p repository.Entity) string { return p.(*Employee).ID }))

// Counted: an employee's mentees.
var _ = repository.Counted(relationTally(TypeEmployee, attrMenteeCount, RelMentor,
	func(ctx context.Context, r *HR, fn func(repository.Entity) error) error {
		return repository.EachPage(func(a repository.PageArgs) (repository.Page[*Employee], error) {
			return r.EmployeesHiredSince(ctx, MinHireTime, a)
		}, repository.EntityFn[*Employee](fn))
	},
	func(p repository.Entity) string { return p.(*Employee).ID }))
