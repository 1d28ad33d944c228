package repository_test

import (
	"context"
	"testing"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/hr"
	"singletable/repository/store/storetest"
)

// Names that become keys have one spelling: "José" hired with a combining accent (NFD) is stored
// in NFC and found by employeesByName in NFC, and either spelling finds it; bidirectional controls
// and zero-width characters are refused; an update with nothing to change is BAD_USER_INPUT.
func TestNamesAreNormalizedAndInvisibleCharactersRefused(t *testing.T) {
	repo := storetest.New(t)
	ctx := context.Background()
	loc, err := repo.CreateLocation(ctx, hr.LocationInput{Country: "ES", State: "MD", City: "Madrid", PostalCode: "28001", Address: "Calle 1"})
	if err != nil {
		t.Fatal(err)
	}
	dept, err := repo.CreateDepartment(ctx, "Ventas", loc.Ref())
	if err != nil {
		t.Fatal(err)
	}
	const nfd, nfc = "Jose\u0301 Pérez", "Jos\u00e9 Pérez"
	e, _, err := repo.HireEmployee(ctx, hr.HireInput{DepartmentID: dept.ID, Name: nfd, Email: "jose@corp.example", JobTitle: "Rep"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != nfc {
		t.Errorf("stored name %q, want its NFC %q", e.Name, nfc)
	}
	for _, spelling := range []string{nfc, nfd} {
		page, err := repo.EmployeesByName(ctx, spelling, repository.PageArgs{First: 5})
		if err != nil || len(page.Items) != 1 {
			t.Errorf("employeesByName(%q): %d found, %v", spelling, len(page.Items), err)
		}
	}
	for name, bad := range map[string]string{"right-to-left override": "Ann\u202Egpj.exe", "zero-width space": "An\u200Bn", "isolate": "\u2066Ann\u2069"} {
		_, _, err := repo.HireEmployee(ctx, hr.HireInput{DepartmentID: dept.ID, Name: bad, Email: "x@corp.example", JobTitle: "Rep"})
		if apperr.CodeOf(err) != apperr.CodeBadUserInput {
			t.Errorf("a name with a %s: %v", name, err)
		}
		if _, err := repo.CreateCustomer(ctx, bad, "c@shop.example", nil); apperr.CodeOf(err) != apperr.CodeBadUserInput {
			t.Errorf("a customer name with a %s: %v", name, err)
		}
	}
	if _, err := repo.UpdateEmployee(ctx, e.ID, hr.EmployeeChanges{}); apperr.CodeOf(err) != apperr.CodeBadUserInput {
		t.Errorf("updateEmployee with nothing to change: %v", err)
	}
}
