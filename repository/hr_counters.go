package repository

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
func (d *Department) EmployeeTotal() Count { return countIf(d.Counted, d.EmployeeCount) }

// DirectReportTotal is the number of employees the employee manages.
func (e *Employee) DirectReportTotal() Count { return countIf(e.Counted, e.DirectReportCount) }

// relationTally is the tally of the relationship items of type rel that point at a parent of type
// parent (a department's employees, a manager's direct reports), read from the inverted GSI1.
func relationTally(parent, attr string, rel RelationType, each func(context.Context, *Repo, func(Entity) error) error, id func(Entity) string) Tally {
	return Tally{
		Parent: parent, Attrs: []string{attr},
		Project: []string{AttrType, "relation", "targetId"},
		Of: func(it map[string]types.AttributeValue) (Key, string, bool) {
			target := StringAttr(it, "targetId")
			k := Key{PK: relationTargetPK(rel, target), SK: relationTargetPK(rel, target)}
			return k, attr, StringAttr(it, AttrType) == TypeRelation && StringAttr(it, "relation") == string(rel)
		},
		Each: each,
		Collection: func(p Entity) *dynamodb.QueryInput {
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
var _ = Counted(relationTally(typeDepartment, attrEmployeeCount, RelDepartment,
	func(ctx context.Context, r *Repo, fn func(Entity) error) error {
		return EachPage(func(a PageArgs) (Page[*Department], error) { return r.ListDepartments(ctx, a) }, EntityFn[*Department](fn))
	},
	func(p Entity) string { return p.(*Department).ID }))

// Counted: an employee's direct reports.
var _ = Counted(relationTally(TypeEmployee, AttrDirectReportCount, RelManager,
	func(ctx context.Context, r *Repo, fn func(Entity) error) error {
		return EachPage(func(a PageArgs) (Page[*Employee], error) { return r.EmployeesHiredSince(ctx, MinHireTime, a) }, EntityFn[*Employee](fn))
	},
	func(p Entity) string { return p.(*Employee).ID }))

// Counted: an employee's mentees.
var _ = Counted(relationTally(TypeEmployee, attrMenteeCount, RelMentor,
	func(ctx context.Context, r *Repo, fn func(Entity) error) error {
		return EachPage(func(a PageArgs) (Page[*Employee], error) { return r.EmployeesHiredSince(ctx, MinHireTime, a) }, EntityFn[*Employee](fn))
	},
	func(p Entity) string { return p.(*Employee).ID }))
