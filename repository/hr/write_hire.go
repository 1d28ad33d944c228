package hr

import (
	"context"
	"time"

	"singletable/apperr"
	"singletable/repository"
)

// HireInput is the input of HireEmployee. HiredAt defaults to now; ManagerID and MentorID are
// optional.
type HireInput struct {
	DepartmentID string
	Name         string
	Email        string
	JobTitle     string
	HiredAt      *time.Time
	ManagerID    *string
	MentorID     *string
}

// HireEmployeePlan is what HireEmployee does, again when the department was renamed meanwhile.
var HireEmployeePlan = repository.WritePlan{Attempts: MaxDepartmentAttempts, Calls: []repository.WriteCall{
	{Operation: "BatchGetItem", Calls: 1, What: "PK = SK = DEPT#<d> and the manager's and mentor's EMP#<e>, consistent"},
	{Operation: "TransactWriteItems", Calls: 1, What: "Put EMP#<e> and its REL# items if absent; check the department's name; count the employee on its manager and mentor, which must exist"},
}}

// HireEmployee stores a new employee with its relationship items (department membership, and
// manager and mentor when given) in ONE transaction that also checks that the department still has
// the name copied onto the employee and that the manager and mentor exist. It returns the employee
// and the relations written.
func (r *HR) HireEmployee(ctx context.Context, in HireInput) (*Employee, []*Relation, error) {
	h, err := checkHire(in)
	if err != nil {
		return nil, nil, err
	}
	id, now, err := r.NewEntityID()
	if err != nil {
		return nil, nil, err
	}
	if h.HiredAt == nil {
		h.HiredAt = &now
	}
	for range HireEmployeePlan.Tries() {
		e, rels, err := r.hireOnce(ctx, h, id, now)
		if err == errDepartmentChanged {
			continue // renamed meanwhile: read the new name and try again
		}
		return e, rels, err
	}
	return nil, nil, errDepartmentChanged
}

// checkHire checks a hire's input and returns it cleaned (hiredAt in UTC).
func checkHire(in HireInput) (HireInput, error) {
	if err := repository.CheckID("departmentId", in.DepartmentID); err != nil {
		return in, err
	}
	var err error
	if in.Name, err = repository.CleanName("name", in.Name); err != nil {
		return in, err
	}
	if in.Email, err = repository.CleanEmail("email", in.Email); err != nil {
		return in, err
	}
	if in.JobTitle, err = repository.CleanText("jobTitle", in.JobTitle, 1, repository.MaxJobTitleLen, false); err != nil {
		return in, err
	}
	for _, p := range []struct {
		field string
		id    *string
	}{{"managerId", in.ManagerID}, {"mentorId", in.MentorID}} {
		if p.id != nil {
			if err := repository.CheckID(p.field, *p.id); err != nil {
				return in, err
			}
		}
	}
	if in.HiredAt != nil {
		t := in.HiredAt.UTC()
		if t.Before(MinHireTime) || t.After(maxHireTime) {
			return in, apperr.InvalidInput("hiredAt", "hiredAt must be between the years 1900 and 9999")
		}
		in.HiredAt = &t
	}
	return in, nil
}

// hireOnce reads the department (for the name to copy), the manager and the mentor, and writes
// the hire in one transaction conditioned on them: errDepartmentChanged if the department was
// renamed meanwhile.
func (r *HR) hireOnce(ctx context.Context, in HireInput, id string, now time.Time) (*Employee, []*Relation, error) {
	keys := []repository.Key{DeptKey(in.DepartmentID)}
	if in.ManagerID != nil {
		keys = append(keys, EmpKey(*in.ManagerID))
	}
	if in.MentorID != nil {
		keys = append(keys, EmpKey(*in.MentorID))
	}
	found, err := r.ReadConsistent(ctx, keys...)
	if err != nil {
		return nil, nil, err
	}
	dept, ok := repository.FoundAs[*Department](found, DeptKey(in.DepartmentID))
	if !ok {
		return nil, nil, repository.NotFoundField("departmentId", "department")
	}
	for _, p := range []struct {
		id          *string
		field, kind string
	}{{in.ManagerID, "managerId", "manager"}, {in.MentorID, "mentorId", "mentor"}} {
		if p.id != nil {
			if _, ok := repository.FoundAs[*Employee](found, EmpKey(*p.id)); !ok {
				return nil, nil, repository.NotFoundField(p.field, p.kind)
			}
		}
	}
	e := &Employee{
		ID: id, Name: in.Name, Email: in.Email, JobTitle: in.JobTitle, HiredAt: *in.HiredAt,
		DepartmentID: dept.ID, DepartmentName: dept.Name, DepartmentNameVersion: dept.NameVersion,
		CreatedAt: now, Counted: true,
	}
	items, rels, err := r.hireItems(in, e, dept, now)
	if err != nil {
		return nil, nil, err
	}
	if err := r.Transact(ctx, "hire employee", items); err != nil {
		return nil, nil, err
	}
	return e, rels, nil
}

// hireItems are the writes of a hire: the department as read (its name is copied) and its count of
// employees, the new employee, its relation items, the existence of its manager and mentor and the
// manager's count of direct reports.
func (r *HR) hireItems(in HireInput, e *Employee, dept *Department, now time.Time) ([]repository.TxItem, []*Relation, error) {
	empItem, err := employeeEntity.Encode(e)
	if err != nil {
		return nil, nil, err
	}
	rels := []*Relation{{EmployeeID: e.ID, Type: RelDepartment, TargetID: dept.ID, UpdatedAt: now}}
	items := []repository.TxItem{
		r.joinDepartment(dept, true),
		r.PutNew(empItem, apperr.Errorf(apperr.CodeConflict, "employee already exists")),
	}
	counts := map[string][]repository.Delta{}
	var order []string
	for _, p := range []struct {
		rel         RelationType
		id          *string
		field, kind string
	}{{RelManager, in.ManagerID, "managerId", "manager"}, {RelMentor, in.MentorID, "mentorId", "mentor"}} {
		if p.id == nil {
			continue
		}
		rels = append(rels, &Relation{EmployeeID: e.ID, Type: p.rel, TargetID: *p.id, UpdatedAt: now})
		// One transaction may touch an item once: a manager who is also the mentor gets both
		// counts in one update, which also checks it exists.
		if _, seen := counts[*p.id]; !seen {
			order = append(order, *p.id)
		}
		counts[*p.id] = append(counts[*p.id], repository.Delta{Attr: relationCountAttr(p.rel), By: 1})
	}
	for _, id := range order {
		field, kind := "mentorId", "mentor"
		if in.ManagerID != nil && *in.ManagerID == id {
			field, kind = "managerId", "manager"
		}
		items = append(items, repository.UnlessMarked(r.TxCount(EmpKey(id), counts[id], repository.NotFoundField(field, kind), nil), repository.NotFoundField(field, kind)))
	}
	for _, rel := range rels {
		item, err := relationEntity.Encode(rel)
		if err != nil {
			return nil, nil, err
		}
		items = append(items, r.PutNew(item, apperr.Errorf(apperr.CodeConflict, "employee already exists")))
	}
	return items, rels, nil
}
