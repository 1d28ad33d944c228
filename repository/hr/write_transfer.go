package hr

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
)

// TransferEmployee moves an employee to another department: ONE transaction replaces the
// membership relation (conditioned on the department it was read pointing at, so of two
// concurrent transfers exactly one wins and the other gets CONFLICT), updates the duplicated
// department fields on the employee (conditioned on the same old department), checks that the
// new department still has the name being copied, moves the employee from the old
// department's count to the new one's, and writes the job it leaves into its history (a
// JobHistory item, as updateEmployee does for a change of title). Transferring an employee to the department it
// is in already is a successful no-op, so a retried transfer is harmless.
func (r *HR) TransferEmployee(ctx context.Context, employee, department string) (*Employee, *Relation, error) {
	if err := repository.CheckID("employeeId", employee); err != nil {
		return nil, nil, err
	}
	if err := repository.CheckID("departmentId", department); err != nil {
		return nil, nil, err
	}
	for range TransferEmployeePlan.Tries() {
		e, rel, err := r.transferOnce(ctx, employee, department)
		if err == errDepartmentChanged {
			continue // renamed meanwhile: read the new name and try again
		}
		return e, rel, err
	}
	return nil, nil, errDepartmentChanged
}

// transferOnce reads the employee, its membership and the new department, and writes the
// transfer in one transaction conditioned on them: errDepartmentChanged if the department was
// renamed meanwhile.
func (r *HR) transferOnce(ctx context.Context, employee, department string) (*Employee, *Relation, error) {
	ek, rk, dk := EmpKey(employee), relationKey(employee, RelDepartment), DeptKey(department)
	found, err := r.ReadConsistent(ctx, ek, rk, dk)
	if err != nil {
		return nil, nil, err
	}
	e, ok := repository.FoundAs[*Employee](found, ek)
	if !ok {
		return nil, nil, repository.NotFoundField("employeeId", "employee")
	}
	dept, ok := repository.FoundAs[*Department](found, dk)
	if !ok {
		return nil, nil, repository.NotFoundField("departmentId", "department")
	}
	old, hasOld := repository.FoundAs[*Relation](found, rk)
	if hasOld && old.TargetID == dept.ID && e.DepartmentID == dept.ID {
		return e, old, nil
	}
	if r.Hooks.TransferRead != nil {
		r.Hooks.TransferRead()
	}
	rel := &Relation{EmployeeID: employee, Type: RelDepartment, TargetID: dept.ID, UpdatedAt: r.Stamp()}
	var oldRel *Relation
	if hasOld {
		oldRel = old
	}
	items, err := r.transferItems(e, dept, rel, oldRel)
	if err != nil {
		return nil, nil, err
	}
	if err := r.Transact(ctx, "transfer employee", items); err != nil {
		return nil, nil, err
	}
	moved := *e
	moved.DepartmentID, moved.DepartmentName, moved.DepartmentNameVersion = dept.ID, dept.Name, dept.NameVersion
	return &moved, rel, nil
}

// transferItems are the writes of a transfer of e to dept: the membership rel replacing old (nil
// for an employee whose membership item is missing, which a consistent store never has), the
// department fields copied onto e, the counts of both departments and, when e leaves a
// department, the JobHistory item of the job it held there. The history records e's job title as
// read, so the employee's update is also conditioned on that title: a title changed meanwhile
// (by updateEmployee, which writes its own history) fails the transfer with CONFLICT rather than
// leaving a history that names a title the employee no longer had.
func (r *HR) transferItems(e *Employee, dept *Department, rel, old *Relation) ([]repository.TxItem, error) {
	relItem, err := relationEntity.Encode(rel)
	if err != nil {
		return nil, err
	}
	relCond, relVals := "attribute_not_exists(PK)", map[string]types.AttributeValue(nil)
	if old != nil {
		relCond, relVals = "targetId = :old", map[string]types.AttributeValue{":old": repository.StringValue(old.TargetID)}
	}
	leaves := old != nil && old.TargetID != dept.ID
	items := []repository.TxItem{
		r.TxPut(relItem, relCond, relVals, errTransferred),
		repository.UnlessMarked(r.TxUpdate(EmpKey(e.ID),
			"SET departmentId = :d, departmentName = :name, departmentNameVersion = :v",
			"departmentId = :old AND jobTitle = :title",
			nil,
			map[string]types.AttributeValue{":d": repository.StringValue(dept.ID), ":name": repository.StringValue(dept.Name), ":v": repository.NumberValue(dept.NameVersion), ":old": repository.StringValue(e.DepartmentID), ":title": repository.StringValue(e.JobTitle)},
			errTransferred), repository.NotFoundField("employeeId", "employee")),
		r.joinDepartment(dept, old == nil || leaves),
	}
	if leaves {
		items = append(items, r.TxCount(DeptKey(old.TargetID), []repository.Delta{{Attr: attrEmployeeCount, By: -1}}, errTransferred, nil))
	}
	if leaves && e.DepartmentID != "" {
		h, err := r.jobHistoryPut(e)
		if err != nil {
			return nil, err
		}
		items = append(items, h)
	}
	return items, nil
}
