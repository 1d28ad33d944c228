package hr

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"singletable/apperr"
	"singletable/repository"
)

// Renaming a department, and keeping the copies of its name on its employees (AP19: a
// duplicated attribute, so that listing employees needs no read of their departments) in step.
//
// A department may have thousands of employees, more than one transaction can hold, so the
// rename is not one atomic change. It is two steps, each safe to repeat:
//
//  1. The rename itself: one conditional UpdateItem of the department sets the new name and
//     increments its nameVersion (v). From here on Department.name and Employee.department{name}
//     show the new name.
//  2. Propagation of version v: page through the department's members on GSI1 (the inverted
//     DEPARTMENT relation, AP9), read each page of employees with a consistent BatchGetItem, and
//     update each copy that is stale with a conditional UpdateItem:
//     departmentId = <d> AND departmentNameVersion < v. The condition makes the update
//     idempotent (a copy already at v is skipped), keeps an older rename from overwriting a newer
//     one (its v is smaller), and skips employees transferred away meanwhile (departmentId
//     differs). Employees hired or transferred in after step 1 copy the new name themselves:
//     their transaction checks the department's name and version as read.
//     When a full pass succeeds, the department records propagatedVersion = v (only if v is
//     still its latest version).
//
// Propagation uses conditional UpdateItems rather than TransactWriteItems chunks on purpose: a
// transaction is all-or-nothing, so one member that must be skipped (transferred away, already
// up to date) would cancel the updates of the whole chunk.
//
// Resuming: renameDepartment with the name the department already has runs step 2 again. It only
// writes the copies that are still stale, so it finishes an interrupted propagation (a crash, a
// timeout, a cancelled request) and repairs a copy the index did not yet list (GSI1 is eventually
// consistent: an employee who joined a fraction of a second before the rename may be missing
// from the first pass). Department.namePropagationPending shows which departments need it.

const (
	// renamePageSize is how many members one propagation step reads: one Query page of GSI1 and
	// one BatchGetItem (at most 100 keys).
	renamePageSize = 100
	// renameWorkers bounds the conditional updates in flight at once.
	renameWorkers = 16
)

// RenameDepartmentPlan is what RenameDepartment does: the rename, then the copies of the name.
var RenameDepartmentPlan = repository.WritePlan{Calls: []repository.WriteCall{
	{Operation: "BatchGetItem", Calls: 1, What: "PK = SK = DEPT#<d>, consistent"},
	{Operation: "UpdateItem", Calls: 1, What: "PK = SK = DEPT#<d> if nameVersion is as read"},
	{Operation: "Query", Calls: 1, PerData: true, What: "GSI1PK = DEPT#<d>#REL#DEPARTMENT, one per 100 employees"},
	{Operation: "BatchGetItem", PerData: true, What: "PK = SK = EMP#<e>, consistent, one per 100 employees"},
	{Operation: "UpdateItem", PerData: true, What: "PK = SK = EMP#<e> if its copy of the name is older, one per employee"},
	{Operation: "UpdateItem", Calls: 1, What: "PK = SK = DEPT#<d>: propagatedVersion"},
}}

// RenameDepartment renames a department and copies the new name onto its employees (see above).
// Called with the name the department already has, it only finishes (or verifies) the
// propagation. If the propagation does not finish, the rename itself has happened; the error says
// to call again with the same name.
func (r *HR) RenameDepartment(ctx context.Context, id, name string) (*Department, error) {
	if err := repository.CheckID("id", id); err != nil {
		return nil, err
	}
	name, err := repository.CleanName("name", name)
	if err != nil {
		return nil, err
	}
	found, err := r.ReadConsistent(ctx, DeptKey(id))
	if err != nil {
		return nil, err
	}
	d, ok := repository.FoundAs[*Department](found, DeptKey(id))
	if !ok {
		return nil, repository.NotFoundField("id", "department")
	}
	if d.Name != name {
		if d, err = r.setDepartmentName(ctx, d, name); err != nil {
			return nil, err
		}
	}
	if err := r.propagateDepartmentName(ctx, d.ID, d.Name, d.NameVersion); err != nil {
		code := apperr.CodeOf(err)
		if code != apperr.CodeInternal {
			code = apperr.CodeUnavailable
		}
		return nil, &apperr.Error{
			Code:    code,
			Message: "the department was renamed, but not every employee's copy of its name is updated yet; call renameDepartment again with the same name to finish",
			Cause:   err,
		}
	}
	if d.PropagatedVersion < d.NameVersion {
		if err := r.markNamePropagated(ctx, d.ID, d.NameVersion); err != nil {
			return nil, err
		}
		d.PropagatedVersion = d.NameVersion
	}
	return d, nil
}

// setDepartmentName is step 1: the new name and the next version, conditioned on the version
// read, so that of two concurrent renames one wins and the other gets CONFLICT. The listing sort
// key (AP7, by name) changes with the name.
func (r *HR) setDepartmentName(ctx context.Context, d *Department, name string) (*Department, error) {
	now, err := attributevalue.Marshal(r.Stamp())
	if err != nil {
		return nil, apperr.Internal("rename department", err)
	}
	out, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(r.Table()),
		Key:                      DeptKey(d.ID).Attributes(),
		UpdateExpression:         aws.String("SET #name = :name, nameVersion = :next, GSI2SK = :sk, updatedAt = :now"),
		ConditionExpression:      aws.String("nameVersion = :v"),
		ExpressionAttributeNames: map[string]string{"#name": "name"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":name": repository.StringValue(name), ":next": repository.NumberValue(d.NameVersion + 1), ":v": repository.NumberValue(d.NameVersion),
			":sk": repository.StringValue(repository.NameSortKey(name, d.ID)), ":now": now,
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil, apperr.Errorf(apperr.CodeConflict, "the department was renamed by a concurrent change; read it again and retry")
	}
	if err != nil {
		return nil, apperr.Classify("rename department", err)
	}
	return repository.DecodeAs[*Department](out.Attributes)
}

// propagateDepartmentName is step 2 for version v of department d's name.
func (r *HR) propagateDepartmentName(ctx context.Context, d, name string, v int) error {
	pk := relationGSI1PK(RelDepartment, d)
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(r.Table()),
		IndexName:                 aws.String(repository.GSI1),
		KeyConditionExpression:    aws.String("GSI1PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": repository.StringValue(pk)},
		Limit:                     aws.Int32(renamePageSize),
	}
	for step := 0; ; step++ {
		out, err := r.DB.Query(ctx, in)
		if err != nil {
			return apperr.Classify("rename: list members", err)
		}
		keys := make([]repository.Key, 0, len(out.Items))
		for _, item := range out.Items {
			rel, err := repository.DecodeAs[*Relation](item)
			if err != nil {
				return err
			}
			keys = append(keys, EmpKey(rel.EmployeeID))
		}
		if len(keys) > 0 {
			found, err := r.ReadConsistent(ctx, keys...)
			if err != nil {
				return err
			}
			var stale []string
			for _, k := range keys {
				if e, ok := repository.FoundAs[*Employee](found, k); ok && e.DepartmentID == d && e.DepartmentNameVersion < v {
					stale = append(stale, e.ID)
				}
			}
			if err := r.updateNameCopies(ctx, stale, d, name, v); err != nil {
				return err
			}
		}
		if r.Hooks.RenameStep != nil {
			if err := r.Hooks.RenameStep(step); err != nil {
				return err
			}
		}
		if out.LastEvaluatedKey == nil {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// updateNameCopies writes version v of the name onto each employee, renameWorkers at a time. A
// failed condition means the copy needs no update (see the file comment) and is not an error.
func (r *HR) updateNameCopies(ctx context.Context, employees []string, d, name string, v int) error {
	var g errgroup.Group
	g.SetLimit(renameWorkers)
	for _, e := range employees {
		g.Go(func() error {
			_, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName:           aws.String(r.Table()),
				Key:                 EmpKey(e).Attributes(),
				UpdateExpression:    aws.String("SET departmentName = :name, departmentNameVersion = :v"),
				ConditionExpression: aws.String("departmentId = :d AND departmentNameVersion < :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":name": repository.StringValue(name), ":v": repository.NumberValue(v), ":d": repository.StringValue(d),
				},
			})
			var ccf *types.ConditionalCheckFailedException
			if err != nil && !errors.As(err, &ccf) {
				return apperr.Classify("rename: update copy", err)
			}
			return nil
		})
	}
	return g.Wait()
}

// markNamePropagated records that version v of the name is on every employee, unless a newer
// rename has happened meanwhile (its own propagation will record itself).
func (r *HR) markNamePropagated(ctx context.Context, d string, v int) error {
	_, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(r.Table()),
		Key:                       DeptKey(d).Attributes(),
		UpdateExpression:          aws.String("SET propagatedVersion = :v"),
		ConditionExpression:       aws.String("nameVersion = :v AND propagatedVersion < :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": repository.NumberValue(v)},
	})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return apperr.Classify("rename: mark propagated", err)
	}
	return nil
}
