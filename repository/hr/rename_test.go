package hr_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/hr"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
)

// hrWorld is a location and helpers to fill departments through the repository.
type hrWorld struct {
	t    *testing.T
	r    *store.Store
	ctx  context.Context
	loc  *hr.Location
	mu   sync.Mutex
	seq  int
	list map[string][]*hr.Employee // by department, in hire order
}

func newHRWorld(t *testing.T) *hrWorld {
	t.Helper()
	w := &hrWorld{t: t, r: storetest.New(t), ctx: context.Background(), list: map[string][]*hr.Employee{}}
	var err error
	w.loc, err = w.r.CreateLocation(w.ctx, hr.LocationInput{Country: "Germany", State: "Berlin", City: "Berlin", PostalCode: "10115", Address: "Invalidenstraße 1"})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *hrWorld) department(name string) *hr.Department {
	w.t.Helper()
	d, err := w.r.CreateDepartment(w.ctx, name, w.loc.Ref())
	if err != nil {
		w.t.Fatal(err)
	}
	return d
}

// staff hires n employees into d, 8 at a time; w.list[d.ID] holds them in id order afterwards.
func (w *hrWorld) staff(d *hr.Department, n int) []*hr.Employee {
	w.t.Helper()
	out := make([]*hr.Employee, n)
	errs := make(chan error, n)
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			w.mu.Lock()
			w.seq++
			email := fmt.Sprintf("e%d@corp.example", w.seq)
			w.mu.Unlock()
			e, _, err := w.r.HireEmployee(w.ctx, hr.HireInput{DepartmentID: d.ID, Name: fmt.Sprintf("Employee %03d", i), Email: email, JobTitle: "Engineer"})
			if err != nil {
				errs <- err
				return
			}
			out[i] = e
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		w.t.Fatal(err)
	}
	w.list[d.ID] = append(w.list[d.ID], out...)
	return out
}

// copies counts the employees by the department name (and version) their item carries.
func (w *hrWorld) copies(emps []*hr.Employee) map[string]int {
	w.t.Helper()
	out := map[string]int{}
	for _, e := range emps {
		got, ok, err := hr.ReadEmployee(w.ctx, w.r.HR, e.ID)
		if err != nil || !ok {
			w.t.Fatalf("employee %s: %v %v", e.ID, ok, err)
		}
		out[fmt.Sprintf("%s@%d", got.DepartmentName, got.DepartmentNameVersion)]++
	}
	return out
}

func (w *hrWorld) readDepartment(id string) *hr.Department {
	w.t.Helper()
	d, ok, err := hr.ReadDepartment(w.ctx, w.r.HR, id)
	if err != nil || !ok {
		w.t.Fatalf("department %s: %v %v", id, ok, err)
	}
	return d
}

func TestRenameDepartmentPropagatesTo250Employees(t *testing.T) {
	w := newHRWorld(t)
	d := w.department("Research")
	emps := w.staff(d, 250)

	steps := 0
	hr.SetRenameStepHook(w.r.HR, func(int) error { steps++; return nil })
	got, err := w.r.RenameDepartment(w.ctx, d.ID, "Research & Development")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Research & Development" || got.NameVersion != 2 || got.NamePropagationPending() {
		t.Fatalf("renamed department %+v", got)
	}
	if c := w.copies(emps); c["Research & Development@2"] != 250 {
		t.Fatalf("copies after the rename: %v", c)
	}
	if steps != 3 {
		t.Errorf("propagation took %d steps, want 3 (pages of 100, 100, 50 members)", steps)
	}
	if st := w.readDepartment(d.ID); st.PropagatedVersion != 2 || st.NamePropagationPending() {
		t.Fatalf("stored department %+v", st)
	}

	// Calling it again with the same name only verifies: it reads, and writes nothing.
	ctx, m := repository.WithMeter(w.ctx)
	if _, err := w.r.RenameDepartment(ctx, d.ID, "Research & Development"); err != nil {
		t.Fatal(err)
	}
	u := m.Usage()
	if u.Calls["UpdateItem"] != 0 || u.Calls["TransactWriteItems"] != 0 {
		t.Fatalf("a rename to the current name wrote: %v", u.Calls)
	}
	t.Logf("verifying pass over 250 members: %v", u.Calls)
}

// A propagation cut off after its first step (the request was cancelled, the process crashed)
// leaves the rename done and marked pending; renameDepartment with the same name finishes it.
func TestInterruptedRenameResumes(t *testing.T) {
	w := newHRWorld(t)
	d := w.department("Sales")
	emps := w.staff(d, 250)

	ctx, cancel := context.WithCancel(w.ctx)
	hr.SetRenameStepHook(w.r.HR, func(step int) error {
		if step == 0 {
			cancel()
		}
		return nil
	})
	_, err := w.r.RenameDepartment(ctx, d.ID, "Revenue")
	if code := apperr.CodeOf(err); code != apperr.CodeUnavailable {
		t.Fatalf("interrupted rename: %v (code %s), want UNAVAILABLE", err, code)
	}
	st := w.readDepartment(d.ID)
	if st.Name != "Revenue" || st.NameVersion != 2 || !st.NamePropagationPending() {
		t.Fatalf("department after the interruption: %+v", st)
	}
	if c := w.copies(emps); c["Revenue@2"] != 100 || c["Sales@1"] != 150 {
		t.Fatalf("copies after one step: %v, want 100 renamed (the first page) and 150 not", c)
	}

	hr.SetRenameStepHook(w.r.HR, nil)
	got, err := w.r.RenameDepartment(w.ctx, d.ID, "Revenue")
	if err != nil {
		t.Fatal(err)
	}
	if got.NameVersion != 2 || got.NamePropagationPending() {
		t.Fatalf("resumed rename must not bump the version: %+v", got)
	}
	if c := w.copies(emps); c["Revenue@2"] != 250 {
		t.Fatalf("copies after resuming: %v", c)
	}
	if st := w.readDepartment(d.ID); st.NamePropagationPending() {
		t.Fatalf("still pending after resuming: %+v", st)
	}
}

// Two renames overlap: the second one starts (and finishes) while the first is still propagating.
// The first rename's remaining steps must not write its older name over the newer one.
func TestOlderRenameNeverOverwritesNewer(t *testing.T) {
	w := newHRWorld(t)
	d := w.department("Ops")
	emps := w.staff(d, 150)

	var started atomic.Bool
	hr.SetRenameStepHook(w.r.HR, func(step int) error {
		if started.Swap(true) {
			return nil // the second rename's own steps, and the first one's after it
		}
		_, err := w.r.RenameDepartment(w.ctx, d.ID, "Platform")
		return err
	})
	if _, err := w.r.RenameDepartment(w.ctx, d.ID, "Infrastructure"); err != nil {
		t.Fatal(err)
	}
	if c := w.copies(emps); c["Platform@3"] != 150 {
		t.Fatalf("copies: %v, want every employee on the newer name", c)
	}
	st := w.readDepartment(d.ID)
	if st.Name != "Platform" || st.NameVersion != 3 || st.NamePropagationPending() {
		t.Fatalf("department %+v", st)
	}
	// A straggling propagation of version 2 changes nothing.
	if err := hr.PropagateDepartmentName(w.ctx, w.r.HR, d.ID, "Infrastructure", 2); err != nil {
		t.Fatal(err)
	}
	if c := w.copies(emps); c["Platform@3"] != 150 {
		t.Fatalf("copies after a late older propagation: %v", c)
	}
}

// An employee transferred out while the rename propagates keeps the name of its new department.
func TestRenameSkipsEmployeesTransferredAway(t *testing.T) {
	w := newHRWorld(t)
	d, other := w.department("Support"), w.department("Success")
	emps := w.staff(d, 150)
	// Members are paged in id order: the newest employee is on the second page, which the
	// propagation reaches after the transfer.
	leaver := emps[0]
	for _, e := range emps {
		if e.ID > leaver.ID {
			leaver = e
		}
	}

	hr.SetRenameStepHook(w.r.HR, func(step int) error {
		if step == 0 {
			_, _, err := w.r.TransferEmployee(w.ctx, leaver.ID, other.ID)
			return err
		}
		return nil
	})
	if _, err := w.r.RenameDepartment(w.ctx, d.ID, "Customer Care"); err != nil {
		t.Fatal(err)
	}
	got, _, err := hr.ReadEmployee(w.ctx, w.r.HR, leaver.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.DepartmentID != other.ID || got.DepartmentName != "Success" {
		t.Fatalf("the leaver carries %s/%q, want Success", got.DepartmentID, got.DepartmentName)
	}
	var stayed []*hr.Employee
	for _, e := range emps {
		if e.ID != leaver.ID {
			stayed = append(stayed, e)
		}
	}
	if c := w.copies(stayed); c["Customer Care@2"] != 149 {
		t.Fatalf("copies: %v", c)
	}
}
