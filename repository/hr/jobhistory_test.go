package hr_test

import (
	"context"
	"testing"

	"singletable/repository"
	"singletable/repository/hr"
	"singletable/repository/store/storetest"
)

// updateEmployee changes only the fields given; a new job title moves the employee's index key at
// once (employeesByJobTitle finds it under the new title only) and writes its old job into the
// history, latest first; a change of name alone writes no history.
func TestUpdateEmployeeMovesItsKeysAndKeepsHistory(t *testing.T) {
	repo := storetest.New(t)
	ctx := context.Background()
	loc, err := repo.CreateLocation(ctx, hr.LocationInput{Country: "US", State: "CA", City: "SF", PostalCode: "94105", Address: "1 Main"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := repo.CreateDepartment(ctx, "Eng", loc.Ref())
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := repo.HireEmployee(ctx, hr.HireInput{DepartmentID: d.ID, Name: "Ann", Email: "ann@corp.example", JobTitle: "Engineer"})
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	for _, title := range []string{"Senior Engineer", "Staff Engineer"} {
		if e, err = repo.UpdateEmployee(ctx, e.ID, hr.EmployeeChanges{JobTitle: str(title)}); err != nil || e.JobTitle != title || e.Name != "Ann" {
			t.Fatalf("update to %s: %+v, %v", title, e, err)
		}
	}
	if e, err = repo.UpdateEmployee(ctx, e.ID, hr.EmployeeChanges{Name: str("Ann Smith")}); err != nil || e.Name != "Ann Smith" || e.JobTitle != "Staff Engineer" {
		t.Fatalf("rename: %+v, %v", e, err)
	}
	for title, want := range map[string]int{"Engineer": 0, "Senior Engineer": 0, "Staff Engineer": 1} {
		p, err := repo.EmployeesByJobTitle(ctx, title, repository.PageArgs{First: 10})
		if err != nil || len(p.Items) != want {
			t.Fatalf("employees titled %s: %d, %v; want %d", title, len(p.Items), err, want)
		}
	}
	h, err := repo.JobHistoryOf(ctx, e.ID, repository.PageArgs{First: 10})
	if err != nil || len(h.Items) != 2 || h.Items[0].JobTitle != "Senior Engineer" || h.Items[1].JobTitle != "Engineer" || h.Items[0].DepartmentName != "Eng" {
		t.Fatalf("history %+v, %v", h.Items, err)
	}
	if _, err := repo.UpdateEmployee(ctx, "01J00000000000000000000001", hr.EmployeeChanges{Name: str("X")}); err == nil {
		t.Fatal("updating a missing employee succeeded")
	}
}
