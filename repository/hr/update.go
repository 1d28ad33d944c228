package hr

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// errDepartmentMoved: the department moved (or went) between the read and the transaction.
var errDepartmentMoved = apperr.Errorf(apperr.CodeConflict, "the department was changed by a concurrent change; read it again and retry")

// RelocateDepartmentPlan is what RelocateDepartment does (explain plans the mutation from it).
var RelocateDepartmentPlan = repository.WritePlan{Calls: []repository.WriteCall{repository.ConsistentRead("PK = SK = DEPT#<d>"), repository.TransactCall("Update DEPT#<d> if at the location read; check the new location exists")}}

// RelocateDepartment moves a department to another location: one transaction updates the
// department, on condition that it is still where it was read, and checks that the new location
// exists (NOT_FOUND naming locationId otherwise). It sets the location only: its listing's index
// key is made of the name, which a concurrent renameDepartment may have changed since the read.
func (r *HR) RelocateDepartment(ctx context.Context, id string, loc LocationRef) (*Department, error) {
	if err := repository.CheckID("id", id); err != nil {
		return nil, err
	}
	var err error
	if loc, err = cleanLocationRef(loc); err != nil {
		return nil, apperr.InvalidInput("locationId", "locationId is not a valid location id")
	}
	locKey, err := LocationKey(loc)
	if err != nil {
		return nil, apperr.InvalidInput("locationId", "locationId is not a valid location id")
	}
	cur, err := repository.ReadLive[*Department](ctx, r.Repo, DeptKey(id), repository.NotFoundField("id", "department"))
	if err != nil {
		return nil, err
	}
	r.AfterCorrectionRead()
	next := *cur
	next.Location, next.UpdatedAt = loc, r.Stamp()
	item, err := departmentEntity.Encode(&next)
	if err != nil {
		return nil, err
	}
	asRead := repository.Condition{
		Expr:   "attribute_exists(PK) AND #loc.id = :locId",
		Names:  map[string]string{"#loc": "location"},
		Values: map[string]types.AttributeValue{":locId": repository.StringValue(cur.Location.ID)},
		Err:    errDepartmentMoved,
	}
	err = r.Transact(ctx, "relocate department", []repository.TxItem{
		r.TxSetFrom(DeptKey(id), item, []string{"location", "updatedAt"}, false, asRead),
		r.MustExist(locKey, repository.NotFoundField("locationId", "location")),
	})
	if err != nil {
		return nil, err
	}
	return &next, nil
}

// UnassignManagerPlan is what UnassignManager does (explain plans the mutation from it).
var UnassignManagerPlan = repository.WritePlan{Attempts: repository.MaxRemovalRounds, Calls: []repository.WriteCall{
	repository.ConsistentRead("PK = SK = EMP#<e>, PK = EMP#<e> SK = REL#MANAGER"), repository.TransactCall("Delete REL#MANAGER if it points at the manager read; update the manager's count")}}

// UnassignManager leaves the employee without a manager: its manager relation goes and its
// manager's count of direct reports shrinks, in one transaction conditioned on the manager read.
// An employee without a manager is returned as it is.
func (r *HR) UnassignManager(ctx context.Context, employee string) (*Employee, error) {
	return r.unassign(ctx, employee, RelManager)
}

// UnassignMentorPlan is what UnassignMentor does (explain plans the mutation from it).
var UnassignMentorPlan = repository.WritePlan{Attempts: repository.MaxRemovalRounds, Calls: []repository.WriteCall{
	repository.ConsistentRead("PK = SK = EMP#<e>, PK = EMP#<e> SK = REL#MENTOR"), repository.TransactCall("Delete REL#MENTOR if it points at the mentor read; update the mentor's count of mentees")}}

// UnassignMentor leaves the employee without a mentor (as UnassignManager: the mentor's count of
// mentees shrinks).
func (r *HR) UnassignMentor(ctx context.Context, employee string) (*Employee, error) {
	return r.unassign(ctx, employee, RelMentor)
}

// unassign removes the employee's relation of type rel (RelManager or RelMentor).
func (r *HR) unassign(ctx context.Context, employee string, rel RelationType) (*Employee, error) {
	if err := repository.CheckID("employeeId", employee); err != nil {
		return nil, err
	}
	plan := UnassignManagerPlan
	if rel == RelMentor {
		plan = UnassignMentorPlan
	}
	for range plan.Tries() {
		found, err := r.ReadConsistent(ctx, EmpKey(employee), relationKey(employee, rel))
		if err != nil {
			return nil, err
		}
		e, ok := repository.FoundAs[*Employee](found, EmpKey(employee))
		if !ok {
			return nil, repository.NotFoundField("employeeId", "employee")
		}
		cur, has := repository.FoundAs[*Relation](found, relationKey(employee, rel))
		if !has {
			return e, nil
		}
		items := []repository.TxItem{r.unlink(cur, errManagerChanged), repository.UnlessMarked(r.MustExist(EmpKey(employee), repository.NotFoundField("employeeId", "employee")), repository.NotFoundField("employeeId", "employee"))}
		items = append(items, r.TxCount(EmpKey(cur.TargetID), []repository.Delta{{Attr: relationCountAttr(rel), By: -1}}, errManagerChanged, nil))
		err = r.Transact(ctx, "unassign", items)
		if err == nil {
			return e, nil
		}
		if err != errManagerChanged {
			return nil, err
		}
	}
	return nil, errManagerChanged
}

// unlink is the Delete of relation item rel, on condition that it still points at its target.
func (r *HR) unlink(rel *Relation, onMoved error) repository.TxItem {
	return r.DeleteIf(relationKey(rel.EmployeeID, rel.Type), "targetId = :t",
		map[string]types.AttributeValue{":t": repository.StringValue(rel.TargetID)}, onMoved)
}
