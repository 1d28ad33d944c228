package hr_test

import (
	"context"
	"testing"

	"singletable/repository"
	"singletable/repository/hr"
	"singletable/repository/store/storetest"
)

// employeesByName finds the employees hired under a name (compared without case and surrounding
// space), and updateEmployee moves the name's index key in its own transaction: the employee is
// found under its new name at once and no longer under the old one, and a change of another
// field leaves the key where it is.
func TestEmployeesByNameFollowsUpdates(t *testing.T) {
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
	hire := func(name string) *hr.Employee {
		e, _, err := repo.HireEmployee(ctx, hr.HireInput{DepartmentID: d.ID, Name: name, Email: "x@corp.example", JobTitle: "Engineer"})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	ann, _, other := hire("Ann Lee"), hire("ann lee"), hire("Annabel Lee")
	byName := func(name string) []string {
		t.Helper()
		p, err := repo.EmployeesByName(ctx, name, repository.PageArgs{First: 10})
		if err != nil {
			t.Fatalf("employees named %q: %v", name, err)
		}
		var ids []string
		for _, e := range p.Items {
			ids = append(ids, e.ID)
		}
		return ids
	}
	if got := byName("  ANN LEE "); len(got) != 2 || got[0] != ann.ID {
		t.Fatalf("employees named Ann Lee: %v", got)
	}
	str := func(s string) *string { return &s }
	if _, err := repo.UpdateEmployee(ctx, ann.ID, hr.EmployeeChanges{Name: str("Ann Smith")}); err != nil {
		t.Fatal(err)
	}
	if got := byName("Ann Smith"); len(got) != 1 || got[0] != ann.ID {
		t.Fatalf("employees named Ann Smith after the rename: %v", got)
	}
	if got := byName("Ann Lee"); len(got) != 1 || got[0] == ann.ID {
		t.Fatalf("employees named Ann Lee after the rename: %v", got)
	}
	if _, err := repo.UpdateEmployee(ctx, other.ID, hr.EmployeeChanges{JobTitle: str("Lead")}); err != nil {
		t.Fatal(err)
	}
	if got := byName("Annabel Lee"); len(got) != 1 || got[0] != other.ID {
		t.Fatalf("employees named Annabel Lee after a title change: %v", got)
	}
	if _, err := repo.EmployeesByName(ctx, " ", repository.PageArgs{First: 10}); err == nil {
		t.Fatal("an empty name was accepted")
	}
}
