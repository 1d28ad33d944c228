package hr

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// EmployeeChanges are the fields updateEmployee sets; nil leaves a field as it is.
type EmployeeChanges struct {
	Name, Email, JobTitle *string
}

// UpdateEmployeePlan is what UpdateEmployee does (explain plans the mutation from it).
var UpdateEmployeePlan = repository.WritePlan{Calls: []repository.WriteCall{
	repository.ConsistentRead("PK = SK = EMP#<e>"),
	repository.TransactCall("Update EMP#<e>, its GSI1PK (JOBTITLE#<title>) and GSI3PK (EMPNAME#<name>) if its job title is as read; Put EMP#<e> JH#<id>, its old job, when the title changes"),
}}

// UpdateEmployee changes the given fields of an employee with ONE TransactWriteItems: an Update of
// the employee item that moves its index keys with it (GSI1PK, its job title's partition of
// AP12, and GSI3PK, its name's partition of AP30), so employeesByJobTitle and employeesByName
// find it under the new title or name at once, conditioned on the job title it read; and, when
// the title changes, a Put of a JobHistory item holding the title and department it had until
// now. A missing employee is NOT_FOUND; a title changed meanwhile is CONFLICT (nothing written).
func (r *HR) UpdateEmployee(ctx context.Context, id string, ch EmployeeChanges) (*Employee, error) {
	if err := repository.CheckID("id", id); err != nil {
		return nil, err
	}
	next, err := cleanEmployeeChanges(ch)
	if err != nil {
		return nil, err
	}
	k := EmpKey(id)
	found, err := r.ReadConsistent(ctx, k)
	if err != nil {
		return nil, err
	}
	e, ok := repository.FoundAs[*Employee](found, k)
	if !ok {
		return nil, apperr.NotFound("employee")
	}
	upd, expr, names, values := employeeUpdate(e, next)
	if expr == "" {
		return e, nil
	}
	tx := []repository.TxItem{repository.UnlessMarked(r.TxUpdate(k, expr, "attribute_exists(PK) AND #jobTitle = :was", names, values,
		apperr.Errorf(apperr.CodeConflict, "the employee's job title changed meanwhile; retry")), apperr.NotFound("employee"))}
	if upd.JobTitle != e.JobTitle {
		h, err := r.jobHistoryPut(e)
		if err != nil {
			return nil, err
		}
		tx = append(tx, h)
	}
	if err := r.Transact(ctx, "update employee", tx); err != nil {
		return nil, err
	}
	return &upd, nil
}

// employeeUpdate is e with the changes applied and the update expression that writes them (empty
// when nothing is given), with its names and values. The index keys derived from a field are set
// with it and only with it, from the value written: a key computed from a field as read could be
// stale by the time the update lands, since the condition checks the job title only.
func employeeUpdate(e *Employee, next EmployeeChanges) (Employee, string, map[string]string, map[string]types.AttributeValue) {
	upd := *e
	sets, values := []string{}, map[string]types.AttributeValue{":was": repository.StringValue(e.JobTitle)}
	names := map[string]string{"#jobTitle": "jobTitle"}
	for _, f := range []struct {
		attr     string
		to, dst  *string
		indexKey string
		indexPK  func(string) string
	}{{"name", next.Name, &upd.Name, repository.AttrGSI3PK, EmployeeNamePK}, {"email", next.Email, &upd.Email, "", nil}, {"jobTitle", next.JobTitle, &upd.JobTitle, repository.AttrGSI1PK, JobTitlePK}} {
		if f.to == nil {
			continue
		}
		*f.dst = *f.to
		names["#"+f.attr] = f.attr
		sets = append(sets, "#"+f.attr+" = :"+f.attr)
		values[":"+f.attr] = repository.StringValue(*f.to)
		if f.indexPK != nil {
			sets = append(sets, f.indexKey+" = :"+f.indexKey)
			values[":"+f.indexKey] = repository.StringValue(f.indexPK(*f.to))
		}
	}
	if len(sets) == 0 {
		return upd, "", nil, nil
	}
	return upd, "SET " + strings.Join(sets, ", "), names, values
}

// jobHistoryPut is the Put of the JobHistory item of e's job as it is before a change.
func (r *HR) jobHistoryPut(e *Employee) (repository.TxItem, error) {
	id, now, err := r.NewEntityID()
	if err != nil {
		return repository.TxItem{}, err
	}
	item, err := jobHistoryEntity.Encode(&JobHistory{ID: id, EmployeeID: e.ID, JobTitle: e.JobTitle, DepartmentID: e.DepartmentID, DepartmentName: e.DepartmentName, Until: now})
	if err != nil {
		return repository.TxItem{}, err
	}
	return r.PutNew(item, apperr.Errorf(apperr.CodeConflict, "job history item already exists")), nil
}

// cleanEmployeeChanges checks the given fields.
func cleanEmployeeChanges(ch EmployeeChanges) (EmployeeChanges, error) {
	if ch.Name == nil && ch.Email == nil && ch.JobTitle == nil {
		return ch, repository.NoChange("name, email, jobTitle")
	}
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
		Name:  clean(ch.Name, func(s string) (string, error) { return repository.CleanName("name", s) }),
		Email: clean(ch.Email, func(s string) (string, error) { return repository.CleanEmail("email", s) }),
		JobTitle: clean(ch.JobTitle, func(s string) (string, error) {
			return repository.CleanText("jobTitle", s, 1, repository.MaxJobTitleLen, false)
		}),
	}
	return out, err
}
