package repository

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// EmployeeChanges are the fields updateEmployee sets; nil leaves a field as it is.
type EmployeeChanges struct {
	Name, Email, JobTitle *string
}

// UpdateEmployeePlan is what UpdateEmployee does (explain plans the mutation from it).
var UpdateEmployeePlan = WritePlan{Calls: []WriteCall{
	consistentRead("PK = SK = EMP#<e>"),
	transactCall("Update EMP#<e> and its GSI1PK (JOBTITLE#<title>) if its job title is as read; Put EMP#<e> JH#<id>, its old job, when the title changes"),
}}

// UpdateEmployee changes the given fields of an employee with ONE TransactWriteItems: an Update of
// the employee item that moves its index key with it (GSI1PK, its job title's partition of
// AP12), so employeesByJobTitle finds it under the new title at once, conditioned on the job
// title it read; and, when the title changes, a Put of a JobHistory item holding the title and
// department it had until now. A missing employee is NOT_FOUND; a title changed meanwhile is
// CONFLICT (nothing written).
func (r *Repo) UpdateEmployee(ctx context.Context, id string, ch EmployeeChanges) (*Employee, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	next, err := cleanEmployeeChanges(ch)
	if err != nil {
		return nil, err
	}
	k := empKey(id)
	found, err := r.readConsistent(ctx, k)
	if err != nil {
		return nil, err
	}
	e, ok := foundAs[*Employee](found, k)
	if !ok {
		return nil, apperr.NotFound("employee")
	}
	upd := *e
	sets, values := []string{}, map[string]types.AttributeValue{":was": s(e.JobTitle)}
	for _, f := range []struct {
		attr string
		to   *string
		dst  *string
	}{{"name", next.Name, &upd.Name}, {"email", next.Email, &upd.Email}, {"jobTitle", next.JobTitle, &upd.JobTitle}} {
		if f.to != nil {
			*f.dst = *f.to
			sets = append(sets, "#"+f.attr+" = :"+f.attr)
			values[":"+f.attr] = s(*f.to)
		}
	}
	if len(sets) == 0 {
		return e, nil
	}
	values[":gsi1pk"] = s(jobTitlePK(upd.JobTitle))
	names := map[string]string{"#name": "name", "#email": "email", "#jobTitle": "jobTitle"}
	for n := range names { // DynamoDB refuses names the expressions do not use
		if n != "#jobTitle" && values[":"+n[1:]] == nil {
			delete(names, n)
		}
	}
	tx := []txItem{r.txUpdate(k, "SET "+strings.Join(sets, ", ")+", GSI1PK = :gsi1pk", "attribute_exists(PK) AND #jobTitle = :was", names, values,
		apperr.Errorf(apperr.CodeConflict, "the employee's job title changed meanwhile; retry"))}
	if upd.JobTitle != e.JobTitle {
		h, err := r.jobHistoryPut(e)
		if err != nil {
			return nil, err
		}
		tx = append(tx, h)
	}
	if err := r.transact(ctx, "update employee", tx); err != nil {
		return nil, err
	}
	return &upd, nil
}

// jobHistoryPut is the Put of the JobHistory item of e's job as it is before a change.
func (r *Repo) jobHistoryPut(e *Employee) (txItem, error) {
	id, now, err := r.newEntityID()
	if err != nil {
		return txItem{}, err
	}
	item, err := jobHistoryEntity.encode(&JobHistory{ID: id, EmployeeID: e.ID, JobTitle: e.JobTitle, DepartmentID: e.DepartmentID, DepartmentName: e.DepartmentName, Until: now})
	if err != nil {
		return txItem{}, err
	}
	return r.putNew(item, apperr.Errorf(apperr.CodeConflict, "job history item already exists")), nil
}

// cleanEmployeeChanges checks the given fields.
func cleanEmployeeChanges(ch EmployeeChanges) (EmployeeChanges, error) {
	var err error
	clean := func(v *string, f func(string) (string, error)) *string {
		if v == nil || err != nil {
			return v
		}
		var c string
		c, err = f(*v)
		return &c
	}
	out := EmployeeChanges{
		Name:  clean(ch.Name, func(s string) (string, error) { return cleanName("name", s) }),
		Email: clean(ch.Email, func(s string) (string, error) { return cleanEmail("email", s) }),
		JobTitle: clean(ch.JobTitle, func(s string) (string, error) {
			return cleanText("jobTitle", s, 1, maxJobTitleLen, false)
		}),
	}
	return out, err
}
