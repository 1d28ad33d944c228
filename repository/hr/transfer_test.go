package hr_test

import (
	"sync"
	"testing"

	"singletable/apperr"
	"singletable/repository/hr"
)

// Two transfers of one employee that both read its membership before either writes: exactly one
// wins and the other gets CONFLICT, and the employee ends in exactly one department, the one its
// duplicated fields name. A barrier between each transfer's read and its transaction makes the
// interleaving certain, so the test does not depend on the scheduler (the server test
// TestConcurrentTransfersOfOneEmployee races them freely through the API).
func TestTwoTransfersOnTheSameReadExactlyOneWins(t *testing.T) {
	w := newHRWorld(t)
	from, to1, to2 := w.department("From"), w.department("To one"), w.department("To two")
	e := w.staff(from, 1)[0]

	var read sync.WaitGroup
	read.Add(2)
	hr.SetTransferReadHook(w.r.HR, func() { read.Done(); read.Wait() })
	t.Cleanup(func() { hr.SetTransferReadHook(w.r.HR, nil) })

	targets := []*hr.Department{to1, to2}
	errs := make([]error, 2)
	var done sync.WaitGroup
	for i, d := range targets {
		done.Add(1)
		go func() {
			defer done.Done()
			_, _, errs[i] = w.r.TransferEmployee(w.ctx, e.ID, d.ID)
		}()
	}
	done.Wait()

	winner := -1
	for i, err := range errs {
		switch code := apperr.CodeOf(err); {
		case err == nil:
			if winner >= 0 {
				t.Fatalf("both transfers won")
			}
			winner = i
		case code != apperr.CodeConflict:
			t.Fatalf("transfer %d: %v (code %s), want CONFLICT", i, err, code)
		}
	}
	if winner < 0 {
		t.Fatalf("no transfer won: %v", errs)
	}
	want := targets[winner]
	rel, ok, err := hr.ReadRelation(w.ctx, w.r.HR, e.ID, hr.RelDepartment)
	if err != nil || !ok || rel.TargetID != want.ID {
		t.Fatalf("membership %+v (found %v, %v), want %s", rel, ok, err, want.Name)
	}
	got, ok, err := hr.ReadEmployee(w.ctx, w.r.HR, e.ID)
	if err != nil || !ok || got.DepartmentID != want.ID || got.DepartmentName != want.Name {
		t.Fatalf("employee %+v (found %v, %v), want in %s", got, ok, err, want.Name)
	}
}
