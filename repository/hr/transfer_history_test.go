package hr_test

import (
	"context"
	"testing"

	"singletable/repository"
	"singletable/repository/hr"
	"singletable/repository/store/storetest"
)

// transferEmployee writes the job the employee leaves (its title and old department) into its
// history in the transfer's own transaction, latest first; a transfer to the department it is in
// already writes nothing.
func TestTransferEmployeeWritesJobHistory(t *testing.T) {
	repo := storetest.New(t)
	ctx := context.Background()
	loc, err := repo.CreateLocation(ctx, hr.LocationInput{Country: "US", State: "CA", City: "SF", PostalCode: "94105", Address: "1 Main"})
	if err != nil {
		t.Fatal(err)
	}
	dept := func(name string) *hr.Department {
		d, err := repo.CreateDepartment(ctx, name, loc.Ref())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	eng, ops, sales := dept("Eng"), dept("Ops"), dept("Sales")
	e, _, err := repo.HireEmployee(ctx, hr.HireInput{DepartmentID: eng.ID, Name: "Ann", Email: "ann@corp.example", JobTitle: "Engineer"})
	if err != nil {
		t.Fatal(err)
	}
	for _, to := range []*hr.Department{ops, ops, sales} {
		if _, _, err := repo.TransferEmployee(ctx, e.ID, to.ID); err != nil {
			t.Fatalf("transfer to %s: %v", to.Name, err)
		}
	}
	h, err := repo.JobHistoryOf(ctx, e.ID, repository.PageArgs{First: 10})
	if err != nil || len(h.Items) != 2 || h.Items[0].DepartmentName != "Ops" || h.Items[1].DepartmentName != "Eng" ||
		h.Items[0].DepartmentID != ops.ID || h.Items[1].JobTitle != "Engineer" {
		t.Fatalf("history %+v, %v; want Ops then Eng", h.Items, err)
	}
}
