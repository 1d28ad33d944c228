package server_test

import (
	"slices"
	"testing"

	"singletable/graph/model"
	"singletable/server"
)

const (
	hireMutation = `mutation($in: HireEmployeeInput!) { hireEmployee(input: $in) {
	  id name email jobTitle hiredAt departmentName department { name } manager { name } mentor { name } } }`
	transferMutation = `mutation($e: ID!, $d: ID!) { transferEmployee(input: {employeeId: $e, departmentId: $d}) {
	  id departmentName department { id name } } }`
	managerMutation = `mutation($e: ID!, $m: ID!) { assignManager(input: {employeeId: $e, managerId: $m}) { id manager { id name } } }`
	mentorMutation  = `mutation($e: ID!, $m: ID!) { assignMentor(input: {employeeId: $e, mentorId: $m}) { id mentor { id name } } }`
	renameMutation  = `mutation($id: ID!, $name: String!) { renameDepartment(input: {id: $id, name: $name}) { id name namePropagationPending } }`
	membersQuery    = `query($id: ID!) { department(id: $id) { employees(first: 100) { edges { node { id name departmentName } } } } }`
)

func (a *api) members(dept string) employeeConn {
	a.t.Helper()
	var out struct {
		Department struct{ Employees employeeConn }
	}
	a.ok(membersQuery, map[string]any{"id": dept}, &out)
	return out.Department.Employees
}

func TestHRMutations(t *testing.T) {
	a := newAPI(t, server.Config{})
	missingEmp := model.Employees.IDOf("01J00000000000000000000000")
	missingDept := model.Departments.IDOf("01J00000000000000000000000")

	var loc struct {
		CreateLocation struct{ ID, Country, City string }
	}
	a.ok(`mutation { createLocation(input: {country: " Japan ", state: "Tokyo", city: "Chiyoda", postalCode: "100-0001", address: "1-1 Chiyoda"}) { id country city } }`, nil, &loc)
	if loc.CreateLocation.Country != "Japan" {
		t.Fatalf("location %+v", loc)
	}
	createDept := `mutation($name: String!, $loc: ID!) { createDepartment(input: {name: $name, locationId: $loc}) { id name namePropagationPending location { city } } }`
	var dept struct {
		CreateDepartment struct {
			ID, Name               string
			NamePropagationPending bool
			Location               struct{ City string }
		}
	}
	a.ok(createDept, map[string]any{"name": "Design", "loc": loc.CreateLocation.ID}, &dept)
	if dept.CreateDepartment.Location.City != "Chiyoda" || dept.CreateDepartment.NamePropagationPending {
		t.Fatalf("department %+v", dept)
	}
	d := dept.CreateDepartment.ID
	var other struct{ CreateDepartment struct{ ID string } }
	a.ok(createDept, map[string]any{"name": "Marketing", "loc": loc.CreateLocation.ID}, &other)
	d2 := other.CreateDepartment.ID

	type hired struct {
		HireEmployee struct {
			ID, Name, Email, JobTitle, HiredAt, DepartmentName string
			Department                                         struct{ Name string }
			Manager, Mentor                                    *struct{ Name string }
		}
	}
	hire := func(name string, extra map[string]any) string {
		t.Helper()
		in := map[string]any{"departmentId": d, "name": name, "email": name + "@corp.example", "jobTitle": "Designer"}
		for k, v := range extra {
			in[k] = v
		}
		var out hired
		a.ok(hireMutation, map[string]any{"in": in}, &out)
		return out.HireEmployee.ID
	}
	boss := hire("boss", map[string]any{"hiredAt": "2021-03-01T09:00:00+01:00"})

	t.Run("hire with manager and mentor, in one transaction, reads back what it wrote", func(t *testing.T) {
		var out hired
		r := a.ok(hireMutation, map[string]any{"in": map[string]any{"departmentId": d, "name": "Kay", "email": "kay@corp.example", "jobTitle": "Designer", "managerId": boss, "mentorId": boss}}, &out)
		h := out.HireEmployee
		if h.DepartmentName != "Design" || h.Department.Name != "Design" || h.Manager.Name != "boss" || h.Mentor.Name != "boss" {
			t.Fatalf("hired %+v", h)
		}
		if r.calls("TransactWriteItems") != 1 {
			t.Fatalf("calls %v, want one transaction", r.Extensions.DynamoDB.Calls)
		}
		var bossOut struct {
			Employee struct {
				HiredAt       string
				DirectReports employeeConn
				Mentees       employeeConn
			}
		}
		a.ok(`query($id: ID!) { employee(id: $id) { hiredAt directReports { edges { node { name } } } mentees { edges { node { name } } } } }`, map[string]any{"id": boss}, &bossOut)
		if bossOut.Employee.HiredAt != "2021-03-01T08:00:00Z" || !slices.Equal(bossOut.Employee.DirectReports.names(), []string{"Kay"}) || !slices.Equal(bossOut.Employee.Mentees.names(), []string{"Kay"}) {
			t.Fatalf("boss %+v", bossOut)
		}
	})

	t.Run("hire: a missing department, manager or mentor is NOT_FOUND naming it, and nothing is written", func(t *testing.T) {
		before := len(a.members(d).Edges)
		for _, c := range []struct {
			in    map[string]any
			field string
		}{
			{map[string]any{"departmentId": missingDept}, "departmentId"},
			{map[string]any{"departmentId": d, "managerId": missingEmp}, "managerId"},
			{map[string]any{"departmentId": d, "managerId": boss, "mentorId": missingEmp}, "mentorId"},
		} {
			in := map[string]any{"name": "Ghost", "email": "ghost@corp.example", "jobTitle": "Designer"}
			for k, v := range c.in {
				in[k] = v
			}
			r := a.query(hireMutation, map[string]any{"in": in})
			if code := r.code(t); code != "NOT_FOUND" || r.Errors[0].Extensions["field"] != c.field {
				t.Errorf("%s: %s %v", c.field, code, r.Errors[0])
			}
		}
		if after := len(a.members(d).Edges); after != before {
			t.Fatalf("members %d → %d after refused hires", before, after)
		}
	})

	t.Run("hire: bad input is BAD_USER_INPUT naming the field", func(t *testing.T) {
		for _, c := range []struct {
			in    map[string]any
			field string
		}{
			{map[string]any{"email": "not-an-email"}, "email"},
			{map[string]any{"name": " "}, "name"},
			{map[string]any{"jobTitle": ""}, "jobTitle"},
			{map[string]any{"hiredAt": "1850-01-01T00:00:00Z"}, "hiredAt"},
			{map[string]any{"managerId": d}, "managerId"},
			{map[string]any{"departmentId": boss}, "departmentId"},
		} {
			in := map[string]any{"departmentId": d, "name": "N", "email": "n@corp.example", "jobTitle": "Designer"}
			for k, v := range c.in {
				in[k] = v
			}
			r := a.query(hireMutation, map[string]any{"in": in})
			if code := r.code(t); code != "BAD_USER_INPUT" || r.Errors[0].Extensions["field"] != c.field {
				t.Errorf("%v: %s %v", c.in, code, r.Errors[0])
			}
		}
	})

	t.Run("transfer moves the membership and the duplicated name; to the same department is a no-op", func(t *testing.T) {
		e := hire("mover", nil)
		var out struct {
			TransferEmployee struct {
				ID, DepartmentName string
				Department         struct{ ID, Name string }
			}
		}
		r := a.ok(transferMutation, map[string]any{"e": e, "d": d2}, &out)
		if out.TransferEmployee.DepartmentName != "Marketing" || out.TransferEmployee.Department.ID != d2 {
			t.Fatalf("transferred %+v", out)
		}
		if r.calls("TransactWriteItems") != 1 {
			t.Fatalf("calls %v", r.Extensions.DynamoDB.Calls)
		}
		if slices.Contains(a.members(d).names(), "mover") || !slices.Contains(a.members(d2).names(), "mover") {
			t.Fatal("membership lists not updated")
		}
		r = a.ok(transferMutation, map[string]any{"e": e, "d": d2}, &out)
		if r.calls("TransactWriteItems") != 0 || out.TransferEmployee.Department.ID != d2 {
			t.Fatalf("same-department transfer: %+v, calls %v", out, r.Extensions.DynamoDB.Calls)
		}
		for _, c := range []struct {
			vars  map[string]any
			code  string
			field string
		}{
			{map[string]any{"e": e, "d": missingDept}, "NOT_FOUND", "departmentId"},
			{map[string]any{"e": missingEmp, "d": d}, "NOT_FOUND", "employeeId"},
			{map[string]any{"e": d, "d": d}, "BAD_USER_INPUT", "employeeId"},
		} {
			r := a.query(transferMutation, c.vars)
			if code := r.code(t); code != c.code || r.Errors[0].Extensions["field"] != c.field {
				t.Errorf("%v: %s %v", c.vars, code, r.Errors[0])
			}
		}
	})

	t.Run("managers: replace, refuse self and cycles", func(t *testing.T) {
		x, y, z := hire("x", nil), hire("y", nil), hire("z", nil)
		var out struct {
			AssignManager struct {
				Manager struct{ ID, Name string }
			}
		}
		a.ok(managerMutation, map[string]any{"e": y, "m": x}, &out) // x manages y
		a.ok(managerMutation, map[string]any{"e": z, "m": y}, &out) // y manages z
		if out.AssignManager.Manager.ID != y {
			t.Fatalf("z's manager %+v", out)
		}
		for _, c := range []struct {
			name string
			e, m string
		}{
			{"self", x, x},
			{"direct cycle", x, y},
			{"indirect cycle", x, z},
		} {
			r := a.query(managerMutation, map[string]any{"e": c.e, "m": c.m})
			if code := r.code(t); code != "BAD_USER_INPUT" || r.Errors[0].Extensions["field"] != "managerId" {
				t.Errorf("%s: %s %v", c.name, code, r.Errors[0])
			}
		}
		if c := a.query(managerMutation, map[string]any{"e": x, "m": missingEmp}).code(t); c != "NOT_FOUND" {
			t.Errorf("missing manager: %s", c)
		}
		// Replacing z's manager moves z between the managers' direct reports.
		a.ok(managerMutation, map[string]any{"e": z, "m": boss}, &out)
		var reports struct {
			Y struct{ DirectReports employeeConn }
			B struct{ DirectReports employeeConn }
		}
		a.ok(`query($y: ID!, $b: ID!) { y: employee(id: $y) { directReports { edges { node { name } } } } b: employee(id: $b) { directReports { edges { node { name } } } } }`,
			map[string]any{"y": y, "b": boss}, &reports)
		if len(reports.Y.DirectReports.Edges) != 0 || !slices.Contains(reports.B.DirectReports.names(), "z") {
			t.Fatalf("reports after replacing: %+v", reports)
		}
		// x may now manage... z's old chain is gone, so x under z is fine.
		a.ok(managerMutation, map[string]any{"e": x, "m": z}, &out)
	})

	t.Run("mentors: refuse self only; a mentoring ring is fine", func(t *testing.T) {
		p, q := hire("p", nil), hire("q", nil)
		var out struct {
			AssignMentor struct {
				Mentor struct{ ID string }
			}
		}
		a.ok(mentorMutation, map[string]any{"e": p, "m": q}, &out)
		a.ok(mentorMutation, map[string]any{"e": q, "m": p}, &out)
		if out.AssignMentor.Mentor.ID != p {
			t.Fatalf("mentor %+v", out)
		}
		r := a.query(mentorMutation, map[string]any{"e": p, "m": p})
		if code := r.code(t); code != "BAD_USER_INPUT" || r.Errors[0].Extensions["field"] != "mentorId" {
			t.Fatalf("self mentor: %s", code)
		}
	})

	t.Run("rename reaches the employees' copies", func(t *testing.T) {
		var out struct {
			RenameDepartment struct {
				Name                   string
				NamePropagationPending bool
			}
		}
		a.ok(renameMutation, map[string]any{"id": d, "name": "Product Design"}, &out)
		if out.RenameDepartment.Name != "Product Design" || out.RenameDepartment.NamePropagationPending {
			t.Fatalf("renamed %+v", out)
		}
		for _, e := range a.members(d).Edges {
			if e.Node.DepartmentName != "Product Design" {
				t.Fatalf("%s still says %q", e.Node.Name, e.Node.DepartmentName)
			}
		}
		if c := a.query(renameMutation, map[string]any{"id": missingDept, "name": "X"}).code(t); c != "NOT_FOUND" {
			t.Fatalf("rename of a missing department: %s", c)
		}
		if c := a.query(renameMutation, map[string]any{"id": d, "name": ""}).code(t); c != "BAD_USER_INPUT" {
			t.Fatalf("empty name: %s", c)
		}
	})
}
