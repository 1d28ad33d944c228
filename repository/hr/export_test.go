package hr

import (
	"context"
	"time"

	"singletable/repository"
)

// SetRenameStepHook makes r call hook after each step of a rename's propagation (nil removes it).
func SetRenameStepHook(r *HR, hook func(step int) error) { r.Hooks.RenameStep = hook }

// SetTransferReadHook makes r's TransferEmployee call hook after its read, before its
// transaction (nil removes it).
func SetTransferReadHook(r *HR, hook func()) { r.Hooks.TransferRead = hook }

// PropagateDepartmentName runs step 2 of a rename for a given version, as an older, slower rename
// still running would.
func PropagateDepartmentName(ctx context.Context, r *HR, d, name string, v int) error {
	return r.propagateDepartmentName(ctx, d, name, v)
}

// PutRelation writes a relationship item as it is, with no checks: tests use it to make the kind
// of inconsistency the API's transactions never leave (a relation to a missing employee).
func PutRelation(ctx context.Context, r *HR, employee string, rel RelationType, target string) error {
	item, err := relationEntity.Encode(&Relation{EmployeeID: employee, Type: rel, TargetID: target, UpdatedAt: time.Now().UTC()})
	if err != nil {
		return err
	}
	return r.Transact(ctx, "test put relation", []repository.TxItem{r.TxPut(item, "", nil, nil)})
}

// ReadEmployee reads an employee with a consistent read.
func ReadEmployee(ctx context.Context, r *HR, id string) (*Employee, bool, error) {
	found, err := r.ReadConsistent(ctx, EmpKey(id))
	if err != nil {
		return nil, false, err
	}
	e, ok := repository.FoundAs[*Employee](found, EmpKey(id))
	return e, ok, nil
}

// ReadRelation reads an employee's relation item of one type with a consistent read.
func ReadRelation(ctx context.Context, r *HR, id string, rel RelationType) (*Relation, bool, error) {
	found, err := r.ReadConsistent(ctx, relationKey(id, rel))
	if err != nil {
		return nil, false, err
	}
	v, ok := repository.FoundAs[*Relation](found, relationKey(id, rel))
	return v, ok, nil
}

// ReadDepartment reads a department with a consistent read.
func ReadDepartment(ctx context.Context, r *HR, id string) (*Department, bool, error) {
	found, err := r.ReadConsistent(ctx, DeptKey(id))
	if err != nil {
		return nil, false, err
	}
	d, ok := repository.FoundAs[*Department](found, DeptKey(id))
	return d, ok, nil
}
