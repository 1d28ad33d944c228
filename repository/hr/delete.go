package hr

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// Removing employees, departments and locations. An employee is marked first, in one transaction
// with its sweep record (it exists and is not being removed): from then on it reads as missing,
// leaves the listings (its index keys go), and every write that would point a new relation at it
// (assignManager or assignMentor with it as the manager or mentor, hireEmployee with it as
// managerId or mentorId, assignAccountRep with it as the rep) or change its own (assignManager,
// assignMentor, assignWarehouse, unassignManager, unassignMentor, transferEmployee,
// updateEmployee of it) is refused with the NOT_FOUND of a missing employee, by its condition. So
// a writer that keeps assigning reports or mentees to it cannot keep the removal from finishing.
// The sweep (run at once, and by the sweeper when the request is cut short) then removes it with
// its relationship items: its own (department, manager, mentor, warehouse; the department's and
// the manager's counts shrink), and those that point at it: its direct reports move to its manager
// (or to none, and the manager's count grows by as many), its mentees lose their mentor. Relations
// that do not fit one transaction move first, in transactions of their own that keep every count
// exact, and the employee goes last, on condition that it carries the mark and its counts of
// direct reports and mentees are those of what it moves. Then its earlier jobs (JH# items) go, and
// the customers it was the account rep of are left without one (no account rep then points at an
// employee that is gone, and their orders from then on count for no rep); the orders it sold and
// its monthly sales stay (the sales happened). The record goes last. Departments and locations
// are refused with CONFLICT, with how many objects still refer to them in extensions.count, while
// anything does.

// errEmployeeChanged: the employee's relations changed between the read and the transaction.
var errEmployeeChanged = apperr.Errorf(apperr.CodeConflict, "the employee's relations kept being changed by concurrent changes; retry")

// ErrEmployeeMoved: a round of a removal too large for one transaction moved its relations; the
// next round moves more (it is progress, not a conflict).
var ErrEmployeeMoved = errors.New("a round of the removal moved relations")

// RelationsPerTx is how many relations pointing at an employee one transaction moves, leaving
// room for the employee's own items and the counts.
const RelationsPerTx = repository.MaxTransactItems - 10

// RemoveEmployeePlan is what RemoveEmployee does (explain plans the mutation from it). Attempts
// bounds the rounds of the sweep that a concurrent change cancels; a round that moves relations
// (a removal too large for one transaction) is progress and does not count.
var RemoveEmployeePlan = repository.WritePlan{Attempts: repository.MaxSweepRounds, Calls: []repository.WriteCall{
	repository.TransactCall("Update EMP#<e> (mark, leave GSI1, GSI2 and GSI3) if it exists and is not being removed; Put SWEEP EMPLOYEE#<e>"),
	{Operation: "Query", Calls: 1, What: "PK = SK = EMP#<e>, consistent (a Query: the mark hides it from BatchGetItem)"},
	repository.ConsistentRead("PK = EMP#<e>, SK = its REL# items"),
	{Operation: "Query", Calls: 2, PerData: true, What: "GSI1PK = EMP#<e>#REL#MANAGER and EMP#<e>#REL#MENTOR: direct reports, mentees"},
	repository.PerDataCall("TransactWriteItems", "move its reports' REL#MANAGER to its manager, Delete its mentees' REL#MENTOR, 90 a transaction, the counts with them"),
	repository.TransactCall("Delete EMP#<e> if marked with the counts of what it moves, and its REL# items; move the last reports and mentees; update the counts of its department, manager and mentor"),
	{Operation: "Query", Calls: 2, PerData: true, What: "the sweep: GSI1PK = EMP#<e>#ACCOUNTS (the customers it was the account rep of), PK = EMP#<e> AND begins_with(SK, JH#) (its earlier jobs), one per 1 MB"},
	repository.PerDataCall("TransactWriteItems", "the sweep: per customer, Update CUST#<c> PROFILE (no account rep, out of GSI1) if its rep is still the employee"),
	repository.PerDataCall("BatchWriteItem", "the sweep: Delete its JH# items beyond the 99 the last transaction takes, 25 a call"),
	repository.TransactCall("the sweep: Delete SWEEP EMPLOYEE#<e> and its (last 99) JH# items"),
}}

// SweepEmployee is the kind of sweep of what a removed employee leaves elsewhere: its earlier
// jobs (JH# items) and the customers it was the account rep of.
const SweepEmployee = "EMPLOYEE"

// The sweep of an employee finishes here.
var _ = repository.DeclareSweep(SweepEmployee, func(ctx context.Context, r *repository.Repo, rec *repository.SweepRecord) error {
	return (&HR{Repo: r}).sweepEmployeeRecord(ctx, rec)
})

// RemoveEmployee removes an employee with its relationship items (see above). The removal is done
// when it returns; if its sweep fails midway, the employee is gone for every reader already and
// the sweeper finishes it.
func (r *HR) RemoveEmployee(ctx context.Context, id string) error {
	if err := repository.CheckID("id", id); err != nil {
		return err
	}
	return r.MarkAndSweep(ctx, "remove employee", &repository.SweepRecord{Kind: SweepEmployee, Employee: id}, true, r.MarkEmployee(id))
}

// MarkEmployee marks the employee as being removed (it must exist and not be marked already: else
// NOT_FOUND) and takes it out of its listings.
func (r *HR) MarkEmployee(id string) repository.TxItem {
	return r.Mark(EmpKey(id), "GSI1PK, GSI1SK, GSI2PK, GSI2SK, GSI3PK, GSI3SK", repository.NotFoundField("id", "employee"))
}

// removeMarkedEmployee removes the marked employee id with its relations, round after round (each
// reads them again), until it is gone, or RemoveEmployeePlan.Tries() rounds were cancelled by
// concurrent changes (the record stays for the sweeper's next run). An employee that is gone
// already, or there without the mark, is not (or no longer) the sweep's to remove.
func (r *HR) removeMarkedEmployee(ctx context.Context, id string) error {
	for conflicts := 0; conflicts < RemoveEmployeePlan.Tries(); {
		err := r.RemoveEmployeeOnce(ctx, id)
		switch {
		case errors.Is(err, ErrEmployeeMoved):
		case repository.IsConflict(err):
			conflicts++
			if err := r.SweepRound(ctx, conflicts); err != nil {
				return err
			}
		default:
			return err
		}
	}
	return fmt.Errorf("removal of employee %s: %w", id, repository.ErrSweepUnfinished)
}

// RemoveEmployeeOnce reads the marked employee and what points at it, and writes one transaction:
// the whole removal if it fits, else the move of the first RelationsPerTx relations
// (ErrEmployeeMoved then asks for another round).
func (r *HR) RemoveEmployeeOnce(ctx context.Context, id string) error {
	item, err := r.ReadOneConsistent(ctx, EmpKey(id))
	if err != nil || item == nil || item[repository.AttrDeleting] == nil {
		return err
	}
	e, err := repository.DecodeAs[*Employee](item)
	if err != nil {
		return err
	}
	own := []repository.Key{relationKey(id, RelDepartment), relationKey(id, RelManager), relationKey(id, RelMentor), relationKey(id, RelWarehouse)}
	found, err := r.ReadConsistent(ctx, own...)
	if err != nil {
		return err
	}
	reports, err := r.RelationsTo(ctx, RelManager, id)
	if err != nil {
		return err
	}
	mentees, err := r.RelationsTo(ctx, RelMentor, id)
	if err != nil {
		return err
	}
	mgr, hasMgr := repository.FoundAs[*Relation](found, relationKey(id, RelManager))
	newManager := ""
	if hasMgr {
		newManager = mgr.TargetID
	}
	pointing := append(reports, mentees...)
	whole := len(pointing) <= RelationsPerTx
	items, moved, err := r.movePointing(pointing[:min(len(pointing), RelationsPerTx)], newManager)
	if err != nil {
		return err
	}
	if !whole {
		return r.removalRound(ctx, id, newManager, pointing[:RelationsPerTx], items, moved)
	}
	return r.Transact(ctx, "remove employee", r.wholeRemoval(e, found, items, len(mentees), moved, newManager))
}

// sweepEmployeeRecord finishes an employee's sweep record: a marked employee is removed with its
// relations first (removeMarkedEmployee; one there without the mark is not the record's: only the
// record goes), then what other domains keep of it goes (SweepSteps: the customers it was the account rep of
// lose their rep), its earlier jobs are deleted, then the record. Each
// step is idempotent: a sweep cut short is run again.
func (r *HR) sweepEmployeeRecord(ctx context.Context, rec *repository.SweepRecord) error {
	item, err := r.ReadOneConsistent(ctx, EmpKey(rec.Employee))
	if err != nil {
		return err
	}
	if item != nil && item[repository.AttrDeleting] == nil {
		return r.Transact(ctx, "sweep", []repository.TxItem{r.DropSweep(rec)})
	}
	if item != nil {
		if r.Hooks.SweepEmployee != nil {
			if err := r.Hooks.SweepEmployee(); err != nil {
				return err
			}
		}
		if err := r.removeMarkedEmployee(ctx, rec.Employee); err != nil {
			return err
		}
	}
	if err := r.SweepSteps(ctx, rec); err != nil {
		return err
	}
	return r.dropJobHistory(ctx, rec)
}

// dropJobHistory deletes the removed employee's earlier jobs (AP29's items) and, in the last
// transaction, the sweep record rec.
func (r *HR) dropJobHistory(ctx context.Context, rec *repository.SweepRecord) error {
	in := JobHistoryOf.Input(r.Table(), EmpPK(rec.Employee), jobHistorySKPrefix)
	in.ProjectionExpression, in.ConsistentRead, in.ScanIndexForward = aws.String("PK, SK"), aws.Bool(true), aws.Bool(true)
	jobs, err := r.QueryAll(ctx, in)
	if err != nil {
		return err
	}
	// The last transaction deletes the record with as many of the jobs as fit; any before them
	// go 25 a call first.
	last := max(0, len(jobs)-(repository.MaxTransactItems-1))
	keys := make([]repository.Key, len(jobs))
	for i, item := range jobs {
		keys[i] = repository.Key{PK: repository.StringAttr(item, repository.AttrPK), SK: repository.StringAttr(item, repository.AttrSK)}
	}
	if err := r.BatchDelete(ctx, keys[:last]); err != nil {
		return err
	}
	items := []repository.TxItem{r.DropSweep(rec)}
	for _, k := range keys[last:] {
		items = append(items, r.DeleteIf(k, "", nil, nil))
	}
	return r.Transact(ctx, "sweep", items)
}

// wholeRemoval completes items (which move the relations pointing at employee e: its reports,
// moved of them to newManager, and its mentees, of which there are mentees) into the whole
// removal: the employee, on condition that its counts are those of what items move (a mentee
// its removal did not see, the index being behind, fails it: the next round sees it), its own
// relations as read (manager, mentor, warehouse, department), and the counts of its department, its manager and its mentor.
func (r *HR) wholeRemoval(e *Employee, found map[repository.Key]repository.Entity, items []repository.TxItem, mentees, moved int, newManager string) []repository.TxItem {
	items = append(items, r.DeleteIf(EmpKey(e.ID), "attribute_exists("+repository.AttrDeleting+") AND (attribute_not_exists(directReportCount) OR directReportCount = :n)"+
		" AND (attribute_not_exists("+attrMenteeCount+") OR "+attrMenteeCount+" = :m)",
		map[string]types.AttributeValue{":n": repository.NumberValue(e.DirectReportCount), ":m": repository.NumberValue(mentees)}, errEmployeeChanged))
	counts := map[string][]repository.Delta{}
	var order []string
	count := func(emp string, d repository.Delta) {
		if _, seen := counts[emp]; !seen {
			order = append(order, emp)
		}
		counts[emp] = append(counts[emp], d)
	}
	for _, t := range []RelationType{RelManager, RelMentor, RelWarehouse} {
		k := relationKey(e.ID, t)
		rel, ok := repository.FoundAs[*Relation](found, k)
		if !ok { // none when read: none assigned since
			items = append(items, r.TxCheck(k, "attribute_not_exists(PK)", nil, nil, errEmployeeChanged))
			continue
		}
		items = append(items, r.unlink(rel, errEmployeeChanged))
		switch t {
		case RelManager:
			count(newManager, repository.Delta{Attr: AttrDirectReportCount, By: moved - 1})
		case RelMentor:
			count(rel.TargetID, repository.Delta{Attr: attrMenteeCount, By: -1})
		}
	}
	for _, emp := range order {
		items = append(items, r.TxCount(EmpKey(emp), counts[emp], errEmployeeChanged, nil))
	}
	if dept, ok := repository.FoundAs[*Relation](found, relationKey(e.ID, RelDepartment)); ok {
		items = append(items, r.unlink(dept, errEmployeeChanged),
			r.TxCount(DeptKey(dept.TargetID), []repository.Delta{{Attr: attrEmployeeCount, By: -1}}, errEmployeeChanged, nil))
	}
	return items
}

// removalRound writes one round of a removal too large for one transaction: items move the
// relations round (moved of them to newManager), and the counts follow. Every report of the round
// stops being the employee's, moved to its manager or (with none) unlinked: its count drops by all
// of them, the new manager's grows by those moved, so that the counts are exact if the removal
// stops before its next round. errEmployeeChanged asks for the next round.
func (r *HR) removalRound(ctx context.Context, id, newManager string, round []*Relation, items []repository.TxItem, moved int) error {
	left, unmentored := 0, 0
	for _, rel := range round {
		if rel.Type == RelManager {
			left++
		} else {
			unmentored++
		}
	}
	items = append(items, r.TxCount(EmpKey(id), []repository.Delta{{Attr: AttrDirectReportCount, By: -left}, {Attr: attrMenteeCount, By: -unmentored}}, repository.NotFoundField("id", "employee"), nil))
	if newManager != "" && moved > 0 {
		items = append(items, r.TxCount(EmpKey(newManager), []repository.Delta{{Attr: AttrDirectReportCount, By: moved}}, errEmployeeChanged, nil))
	}
	if err := r.Transact(ctx, "remove employee", items); err != nil {
		return err
	}
	return ErrEmployeeMoved // another round for the rest
}

// movePointing is the transaction items that move relations pointing at a removed employee: a
// direct report's to newManager (or away, with none), a mentee's away. moved counts the reports
// that move to newManager.
func (r *HR) movePointing(rels []*Relation, newManager string) ([]repository.TxItem, int, error) {
	var items []repository.TxItem
	moved := 0
	for _, rel := range rels {
		if rel.Type != RelManager || newManager == "" {
			items = append(items, r.unlink(rel, errEmployeeChanged))
			continue
		}
		next := &Relation{EmployeeID: rel.EmployeeID, Type: RelManager, TargetID: newManager, UpdatedAt: r.Stamp()}
		item, err := relationEntity.Encode(next)
		if err != nil {
			return nil, 0, err
		}
		items = append(items, r.TxPut(item, "targetId = :old", map[string]types.AttributeValue{":old": repository.StringValue(rel.TargetID)}, errEmployeeChanged))
		moved++
	}
	return items, moved, nil
}

// RelationsTo reads every relation of type rel that points at target (AP11, to the end).
func (r *HR) RelationsTo(ctx context.Context, rel RelationType, target string) ([]*Relation, error) {
	raw, err := r.QueryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(r.Table()),
		IndexName:                 aws.String(repository.GSI1),
		KeyConditionExpression:    aws.String("GSI1PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": repository.StringValue(relationGSI1PK(rel, target))},
	})
	if err != nil {
		return nil, err
	}
	return repository.DecodeAll[*Relation](raw)
}

// stillReferred is the CONFLICT of removing an object count others still refer to.
func stillReferred(kind, others string, count int) error {
	return &apperr.Error{Code: apperr.CodeConflict, Count: &count,
		Message: fmt.Sprintf("the %s still has %d %s: move or remove them first", kind, count, others)}
}

// DeleteDepartmentPlan is what DeleteDepartment does (explain plans the mutation from it).
var DeleteDepartmentPlan = repository.WritePlan{Calls: []repository.WriteCall{repository.ConsistentRead("PK = SK = DEPT#<d>"), repository.TransactCall("Delete DEPT#<d> if it has no employees")}}

// DeleteDepartment removes a department without employees: CONFLICT with their number while it
// has any. The delete is conditioned on its count of employees being zero, so an employee hired
// or transferred in meanwhile makes it fail.
func (r *HR) DeleteDepartment(ctx context.Context, id string) error {
	if err := repository.CheckID("id", id); err != nil {
		return err
	}
	d, err := repository.ReadLive[*Department](ctx, r.Repo, DeptKey(id), repository.NotFoundField("id", "department"))
	if err != nil {
		return err
	}
	count := d.EmployeeCount
	if !d.Counted {
		members, err := r.RelationsTo(ctx, RelDepartment, id)
		if err != nil {
			return err
		}
		count = len(members)
	}
	if count > 0 {
		return stillReferred("department", "employees", count)
	}
	r.AfterCorrectionRead()
	del := r.DeleteIf(DeptKey(id), "attribute_exists(PK) AND (attribute_not_exists(employeeCount) OR employeeCount = :zero)",
		map[string]types.AttributeValue{":zero": repository.NumberValue(0)}, nil)
	del.Item.Delete.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	del.OnConditionOld = departmentInUse
	return r.Transact(ctx, "delete department", []repository.TxItem{del})
}

// departmentInUse is the error of a department delete that lost the race to a hire or a transfer
// in (or to another delete), from the department as DynamoDB found it: its real count of
// employees, which the CONFLICT reports, not a guess.
func departmentInUse(old map[string]types.AttributeValue) error {
	if old == nil {
		return repository.NotFoundField("id", "department")
	}
	return stillReferred("department", "employees", repository.IntAttr(old, attrEmployeeCount))
}

// DeleteLocationPlan is what DeleteLocation does (explain plans the mutation from it).
var DeleteLocationPlan = repository.WritePlan{Calls: []repository.WriteCall{repository.ConsistentRead("PK = COUNTRY#<c>, SK = <state>#<city>#<postal>#<l>"),
	{Operation: "Query", Calls: 1, PerData: true, What: "GSI2PK = TYPE#Department, filtered by location, one per 1 MB"},
	repository.TransactCall("Delete the location if it exists")}}

// DeleteLocation removes a location no department is at: CONFLICT with their number while any is.
// The departments are found on the department listing (GSI2), filtered by location.
func (r *HR) DeleteLocation(ctx context.Context, loc LocationRef) error {
	k, err := LocationKey(loc)
	if err != nil {
		return err
	}
	if _, err := repository.ReadLive[*Location](ctx, r.Repo, k, repository.NotFoundField("id", "location")); err != nil {
		return err
	}
	raw, err := r.QueryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(r.Table()),
		IndexName:                 aws.String(repository.GSI2),
		KeyConditionExpression:    aws.String("GSI2PK = :pk"),
		FilterExpression:          aws.String("#loc.id = :id"),
		ExpressionAttributeNames:  map[string]string{"#loc": "location"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": repository.StringValue(repository.TypePK(typeDepartment)), ":id": repository.StringValue(loc.ID)},
	})
	if err != nil {
		return err
	}
	if len(raw) > 0 {
		return stillReferred("location", "departments", len(raw))
	}
	return r.Transact(ctx, "delete location", []repository.TxItem{r.DeleteIf(k, "attribute_exists(PK)", nil, repository.NotFoundField("id", "location"))})
}
