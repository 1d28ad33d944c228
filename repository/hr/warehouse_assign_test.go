package hr_test

import (
	"context"
	"testing"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/hr"
	"singletable/repository/store/storetest"
)

// assignWarehouse puts the employee in the warehouse's list (the inverse of its REL#WAREHOUSE
// item on GSI1) and on its own item at once; a reassignment moves it from the old list to the
// new; a missing warehouse is NOT_FOUND and writes nothing; a removed employee leaves the list.
func TestAssignWarehouseListsTheEmployeeAtOnce(t *testing.T) {
	repo := storetest.New(t)
	ctx := context.Background()
	loc, err := repo.CreateLocation(ctx, hr.LocationInput{Country: "US", State: "CA", City: "SF", PostalCode: "94105", Address: "1 Main"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := repo.CreateDepartment(ctx, "Ops", loc.Ref())
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := repo.HireEmployee(ctx, hr.HireInput{DepartmentID: d.ID, Name: "Ann", Email: "ann@corp.example", JobTitle: "Picker"})
	if err != nil {
		t.Fatal(err)
	}
	north, _ := repo.CreateWarehouse(ctx, "North", "eu")
	south, _ := repo.CreateWarehouse(ctx, "South", "eu")
	staff := func(w string) int {
		t.Helper()
		p, err := repo.InverseRelations(ctx, hr.RelWarehouse, w, repository.PageArgs{First: 10})
		if err != nil {
			t.Fatal(err)
		}
		return len(p.Items)
	}
	if got, _, err := repo.AssignWarehouse(ctx, e.ID, north.ID); err != nil || got.WarehouseID != north.ID || staff(north.ID) != 1 {
		t.Fatalf("assign to North: %+v, %v; North has %d", got, err, staff(north.ID))
	}
	if _, _, err := repo.AssignWarehouse(ctx, e.ID, south.ID); err != nil || staff(north.ID) != 0 || staff(south.ID) != 1 {
		t.Fatalf("reassign to South: %v; North %d, South %d", err, staff(north.ID), staff(south.ID))
	}
	_, _, err = repo.AssignWarehouse(ctx, e.ID, "01J00000000000000000000001")
	if apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("assign to a missing warehouse: %v", err)
	}
	if err := repo.RemoveEmployee(ctx, e.ID); err != nil || staff(south.ID) != 0 {
		t.Fatalf("remove: %v; South has %d", err, staff(south.ID))
	}
}
