package server_test

import (
	"context"
	"testing"

	"singletable/auth"
	"singletable/graph/model"
	"singletable/repository/catalog"
	"singletable/repository/hr"
	"singletable/server"
)

// staffedWarehouses are two warehouses, North and South, with two employees each of department
// Ops, assigned over GraphQL; Dee is assigned to North first and then moved to South.
func staffedWarehouses(t *testing.T, a *api) (dept *hr.Department, north *catalog.Warehouse) {
	ctx := context.Background()
	h := a.hr()
	dept = h.department("Ops")
	north, err := a.repo.CreateWarehouse(ctx, "North", "eu")
	if err != nil {
		t.Fatal(err)
	}
	south, err := a.repo.CreateWarehouse(ctx, "South", "eu")
	if err != nil {
		t.Fatal(err)
	}
	const assign = `mutation($e: ID!, $w: ID!) { assignWarehouse(input: {employeeId: $e, warehouseId: $w}) { id warehouse { name } } }`
	dee := h.hire(dept, "Dee", hireOpts{title: "Picker"})
	for _, p := range []struct {
		e  *hr.Employee
		to *catalog.Warehouse
	}{{h.hire(dept, "Ann", hireOpts{title: "Picker"}), north}, {h.hire(dept, "Bob", hireOpts{title: "Picker"}), north},
		{h.hire(dept, "Cy", hireOpts{title: "Picker"}), south}, {dee, north}, {dee, south}} {
		var out struct {
			AssignWarehouse struct{ Warehouse struct{ Name string } }
		}
		a.ok(assign, map[string]any{"e": model.Employees.ID(p.e), "w": model.Warehouses.ID(p.to)}, &out)
		if out.AssignWarehouse.Warehouse.Name != p.to.Name {
			t.Fatalf("assignWarehouse of %s returned %+v", p.e.Name, out)
		}
	}
	return dept, north
}

// assignWarehouse, Employee.warehouse and Warehouse.employees over GraphQL: a reassigned employee
// leaves its old warehouse's list at once; the lists of a level are one Query per warehouse and
// their employees one BatchGetItem, the employees' warehouses one BatchGetItem; sales and
// customers are FORBIDDEN the staff of a warehouse.
func TestWarehouseStaffOverGraphQL(t *testing.T) {
	a := newAPI(t, server.Config{})
	dept, north := staffedWarehouses(t, a)
	const q = `{ warehouses { edges { node { name employees { edges { node { name warehouse { name } } } } } } } }`
	var out struct {
		Warehouses struct {
			Edges []struct {
				Node struct {
					Name      string
					Employees struct {
						Edges []struct {
							Node struct {
								Name      string
								Warehouse struct{ Name string }
							}
						}
					}
				}
			}
		}
	}
	r := a.ok(q, nil, &out)
	got := map[string]int{}
	for _, w := range out.Warehouses.Edges {
		for _, e := range w.Node.Employees.Edges {
			if e.Node.Warehouse.Name != w.Node.Name {
				t.Fatalf("%s of %s has warehouse %q", e.Node.Name, w.Node.Name, e.Node.Warehouse.Name)
			}
			got[w.Node.Name]++
		}
	}
	if got["North"] != 2 || got["South"] != 2 {
		t.Fatalf("employees per warehouse %v, want North 2 (Ann, Bob), South 2 (Cy, Dee)", got)
	}
	// warehouses (1 Query), their employees (1 Query each, then 1 BatchGetItem for the level),
	// the employees' warehouses (answered from the warehouses read already, or 1 BatchGetItem).
	if q, b := r.calls("Query"), r.calls("BatchGetItem"); q != 3 || b > 2 {
		t.Fatalf("calls %v, want 3 Queries and at most 2 BatchGetItems", r.Extensions.DynamoDB.Calls)
	}
	// A department's employees with their warehouses (two different ones): the warehouses of the
	// level are one BatchGetItem, after the department's and its members'.
	r = a.ok(`query($id: ID!) { department(id: $id) { employees { edges { node { warehouse { name } } } } } }`,
		map[string]any{"id": model.Departments.ID(dept)}, nil)
	if q, b := r.calls("Query"), r.calls("BatchGetItem"); q != 1 || b != 3 {
		t.Fatalf("a department's employees' warehouses: calls %v, want 1 Query and 3 BatchGetItems", r.Extensions.DynamoDB.Calls)
	}
	for _, role := range []auth.Role{auth.RoleSales, auth.RoleCustomer} {
		c := a.as(auth.Claims{Subject: "x", Roles: []string{string(role)}, Customer: "Q3VzdG9tZXI6MDFBUlozTkRFS1RTVjRSUkZGUTY5RzVGQVY"})
		res := c.query(`query($id: ID!) { warehouse(id: $id) { employees { edges { node { name } } } } }`, map[string]any{"id": model.Warehouses.ID(north)})
		if len(res.Errors) == 0 || res.Errors[0].Extensions["code"] != "FORBIDDEN" {
			t.Fatalf("%s reading a warehouse's employees: %+v", role, res.Errors)
		}
	}
}
