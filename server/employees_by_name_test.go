package server_test

import (
	"testing"

	"singletable/auth"
	"singletable/graph/model"
	"singletable/server"
)

// employeesByName over GraphQL: after updateEmployee renames an employee, the name index finds it
// under the new name at once and no longer under the old one; a page is one Query; sales and
// customers are FORBIDDEN.
func TestEmployeesByNameOverGraphQL(t *testing.T) {
	a := newAPI(t, server.Config{})
	h := a.hr()
	dept := h.department("Eng")
	e := h.hire(dept, "Ann Lee", hireOpts{title: "Engineer"})
	h.hire(dept, "Bob", hireOpts{title: "Engineer"})
	var out struct {
		EmployeesByName struct {
			Edges []struct{ Node struct{ ID, Name string } }
		}
	}
	const q = `query($n: String!) { employeesByName(name: $n, first: 10) { edges { node { id name } } } }`
	a.ok(`mutation($id: ID!) { updateEmployee(input: {id: $id, name: "Ann Smith"}) { name } }`, map[string]any{"id": model.Employees.ID(e)}, nil)
	r := a.ok(q, map[string]any{"n": "ann smith"}, &out)
	if got := out.EmployeesByName.Edges; len(got) != 1 || got[0].Node.ID != model.Employees.ID(e) || got[0].Node.Name != "Ann Smith" {
		t.Fatalf("employees named Ann Smith: %+v", got)
	}
	if r.calls("Query") != 1 || r.calls("BatchGetItem") != 0 {
		t.Fatalf("a page of employees by name made %v calls, want one Query", r.Extensions.DynamoDB.Calls)
	}
	a.ok(q, map[string]any{"n": "Ann Lee"}, &out)
	if len(out.EmployeesByName.Edges) != 0 {
		t.Fatalf("the old name still finds %+v", out.EmployeesByName.Edges)
	}
	for _, role := range []auth.Role{auth.RoleSales, auth.RoleCustomer} {
		c := a.as(auth.Claims{Subject: "x", Roles: []string{string(role)}, Customer: "Q3VzdG9tZXI6MDFBUlozTkRFS1RTVjRSUkZGUTY5RzVGQVY"})
		if code := c.query(q, map[string]any{"n": "Ann Smith"}).code(t); code != "FORBIDDEN" {
			t.Fatalf("%s: %s, want FORBIDDEN", role, code)
		}
	}
}
