package server_test

import (
	"testing"

	"singletable/graph/model"
	"singletable/server"
)

// transferEmployee over GraphQL: the job the employee leaves is in its jobHistory at once, with
// the old department's name.
func TestTransferEmployeeWritesJobHistoryOverGraphQL(t *testing.T) {
	a := newAPI(t, server.Config{})
	h := a.hr()
	eng, ops := h.department("Eng"), h.department("Ops")
	e := h.hire(eng, "Ann", hireOpts{title: "Engineer"})
	var out struct {
		TransferEmployee struct {
			DepartmentName string
			JobHistory     struct {
				Edges []struct {
					Node struct{ JobTitle, DepartmentName string }
				}
			}
		}
	}
	a.ok(`mutation($e: ID!, $d: ID!) { transferEmployee(input: {employeeId: $e, departmentId: $d}) {
		departmentName jobHistory { edges { node { jobTitle departmentName } } } } }`,
		map[string]any{"e": model.Employees.ID(e), "d": model.Departments.ID(ops)}, &out)
	got := out.TransferEmployee
	if got.DepartmentName != "Ops" || len(got.JobHistory.Edges) != 1 || got.JobHistory.Edges[0].Node.DepartmentName != "Eng" ||
		got.JobHistory.Edges[0].Node.JobTitle != "Engineer" {
		t.Fatalf("after the transfer: %+v", got)
	}
}
