package server_test

import (
	"slices"
	"testing"
	"time"

	"singletable/graph/model"
	"singletable/server"
)

type locationConn struct {
	Edges []struct {
		Cursor string
		Node   struct{ ID, Country, State, City, PostalCode, Address string }
	}
	PageInfo pageInfo
}

func (c locationConn) cities() []string {
	out := make([]string, len(c.Edges))
	for i, e := range c.Edges {
		out[i] = e.Node.City + " " + e.Node.PostalCode
	}
	return out
}

func TestHRAccessPatterns(t *testing.T) {
	a := newAPI(t, server.Config{})
	f := a.hr()
	eng, sales, acct := f.department("Engineering"), f.department("Sales"), f.department("accounting")
	t0 := time.Date(2020, 1, 1, 9, 0, 0, 0, time.UTC)
	cto := f.hire(eng, "Grace", hireOpts{title: "CTO", hiredAt: t0})
	e1 := f.hire(eng, "Ada", hireOpts{title: "Engineer", hiredAt: t0.AddDate(1, 0, 0), manager: cto})
	e2 := f.hire(eng, "Alan", hireOpts{title: "engineer ", hiredAt: t0.AddDate(2, 0, 0), manager: cto, mentor: e1})
	e3 := f.hire(eng, "Edsger", hireOpts{title: "ENGINEER", hiredAt: t0.AddDate(3, 0, 0), manager: cto, mentor: e1})
	e4 := f.hire(eng, "Barbara", hireOpts{title: "Engineer", hiredAt: t0.AddDate(4, 0, 0), manager: e1})
	s1 := f.hire(sales, "Hank", hireOpts{title: "Account Executive", hiredAt: t0.AddDate(2, 6, 0), manager: cto})

	t.Run("AP8 department by id is one batched key lookup", func(t *testing.T) {
		var out struct{ Department struct{ ID, Name string } }
		r := a.ok(`query($id: ID!) { department(id: $id) { id name } }`, map[string]any{"id": departmentID(eng)}, &out)
		if out.Department.Name != "Engineering" || out.Department.ID != departmentID(eng) {
			t.Fatalf("got %+v", out.Department)
		}
		if r.calls("BatchGetItem") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("calls %v, want one BatchGetItem", r.Extensions.DynamoDB.Calls)
		}
	})

	t.Run("AP7 departments by name, one Query, locations read ahead in one batch", func(t *testing.T) {
		var out struct {
			Departments struct {
				Edges []struct {
					Node struct {
						Name     string
						Location struct{ City string }
					}
				}
			}
		}
		r := a.ok(`{ departments { edges { node { name location { city } } } } }`, nil, &out)
		var names []string
		for _, e := range out.Departments.Edges {
			names = append(names, e.Node.Name)
			if e.Node.Location.City != "San Jose" {
				t.Fatalf("location %+v", e.Node.Location)
			}
		}
		if !slices.Equal(names, []string{"accounting", "Engineering", "Sales"}) {
			t.Fatalf("departments %v, want by name without case", names)
		}
		if r.calls("Query") != 1 || r.calls("BatchGetItem") != 1 || r.Extensions.DynamoDB.TotalCalls != 2 {
			t.Fatalf("calls %v, want one Query and one BatchGetItem", r.Extensions.DynamoDB.Calls)
		}
		_ = acct
	})

	t.Run("AP9 employees of a department, paged", func(t *testing.T) {
		q := `query($id: ID!, $after: String) { department(id: $id) { employees(first: 2, after: $after) { edges { cursor node { id name departmentName } } pageInfo { hasNextPage hasPreviousPage endCursor } } } }`
		var all []string
		var after any
		for page := 0; ; page++ {
			var out struct {
				Department struct{ Employees employeeConn }
			}
			r := a.ok(q, map[string]any{"id": departmentID(eng), "after": after}, &out)
			c := out.Department.Employees
			all = append(all, c.names()...)
			if c.PageInfo.HasPreviousPage != (page > 0) {
				t.Fatalf("page %d: %+v", page, c.PageInfo)
			}
			// The department, then ONE Query of its relation items, then ONE BatchGetItem of
			// its employees.
			if r.calls("Query") != 1 || r.calls("BatchGetItem") != 2 || r.Extensions.DynamoDB.TotalCalls != 3 {
				t.Fatalf("page %d calls %v", page, r.Extensions.DynamoDB.Calls)
			}
			if !c.PageInfo.HasNextPage {
				break
			}
			after = *c.PageInfo.EndCursor
		}
		if !slices.Equal(all, []string{"Grace", "Ada", "Alan", "Edsger", "Barbara"}) {
			t.Fatalf("employees %v, want hire order", all)
		}

		// A cursor of one department's list is refused by another's.
		var first struct {
			Department struct{ Employees employeeConn }
		}
		a.ok(q, map[string]any{"id": departmentID(sales), "after": nil}, &first)
		r := a.query(q, map[string]any{"id": departmentID(eng), "after": first.Department.Employees.Edges[0].Cursor})
		if c := r.code(t); c != "BAD_USER_INPUT" {
			t.Fatalf("foreign cursor: %s", c)
		}
	})

	t.Run("AP10 department, manager and mentor; none is null, not an error", func(t *testing.T) {
		var out struct {
			Nodes []*struct {
				Name       string
				Department struct{ Name string }
				Manager    *struct{ Name string }
				Mentor     *struct{ Name string }
			}
		}
		r := a.ok(`query($ids: [ID!]!) { nodes(ids: $ids) { ... on Employee { name department { name } manager { name } mentor { name } } } }`,
			map[string]any{"ids": []string{employeeID(e2), employeeID(cto), employeeID(s1)}}, &out)
		alan, grace, hank := out.Nodes[0], out.Nodes[1], out.Nodes[2]
		if alan.Department.Name != "Engineering" || alan.Manager.Name != "Grace" || alan.Mentor.Name != "Ada" {
			t.Fatalf("Alan %+v", alan)
		}
		if grace.Manager != nil || grace.Mentor != nil || hank.Manager.Name != "Grace" || hank.Department.Name != "Sales" {
			t.Fatalf("Grace %+v, Hank %+v", grace, hank)
		}
		// Key lookups only: the employees, their relation items, the targets.
		if r.calls("Query") != 0 || r.calls("GetItem") != 0 || r.calls("BatchGetItem") < 3 {
			t.Fatalf("calls %v", r.Extensions.DynamoDB.Calls)
		}
		t.Logf("3 employees with department, manager, mentor: %v", r.Extensions.DynamoDB.Calls)
	})

	t.Run("AP11 direct reports and mentees", func(t *testing.T) {
		var out struct {
			Employee struct {
				DirectReports employeeConn
				Mentees       employeeConn
			}
		}
		a.ok(`query($id: ID!) { employee(id: $id) { directReports { edges { node { name } } } mentees { edges { node { name } } } } }`,
			map[string]any{"id": employeeID(e1)}, &out)
		if got := out.Employee.DirectReports.names(); !slices.Equal(got, []string{"Barbara"}) {
			t.Fatalf("Ada's reports %v", got)
		}
		if got := out.Employee.Mentees.names(); !slices.Equal(got, []string{"Alan", "Edsger"}) {
			t.Fatalf("Ada's mentees %v", got)
		}
		var cto2 struct {
			Employee struct{ DirectReports employeeConn }
		}
		a.ok(`query($id: ID!) { employee(id: $id) { directReports { edges { node { name } } } } }`, map[string]any{"id": employeeID(cto)}, &cto2)
		if got := cto2.Employee.DirectReports.names(); !slices.Equal(got, []string{"Ada", "Alan", "Edsger", "Hank"}) {
			t.Fatalf("Grace's reports %v", got)
		}
	})

	t.Run("AP12 employees by job title, without case, longest-serving first, relations read ahead", func(t *testing.T) {
		var out struct {
			EmployeesByJobTitle struct {
				Edges []struct {
					Node struct {
						Name       string
						Department struct{ Name string }
						Manager    *struct{ Name string }
						Mentor     *struct{ Name string }
					}
				}
			}
		}
		r := a.ok(`{ employeesByJobTitle(jobTitle: " engineer") { edges { node { name department { name } manager { name } mentor { name } } } } }`, nil, &out)
		var names []string
		for _, e := range out.EmployeesByJobTitle.Edges {
			names = append(names, e.Node.Name)
			if e.Node.Department.Name != "Engineering" || e.Node.Manager == nil {
				t.Fatalf("%+v", e.Node)
			}
		}
		if !slices.Equal(names, []string{"Ada", "Alan", "Edsger", "Barbara"}) {
			t.Fatalf("engineers %v", names)
		}
		// One Query (GSI1 JOBTITLE#engineer); the 12 relation items in one BatchGetItem; their
		// targets (departments and managers/mentors) in one more.
		if r.calls("Query") != 1 || r.calls("BatchGetItem") != 2 || r.Extensions.DynamoDB.TotalCalls != 3 {
			t.Fatalf("calls %v", r.Extensions.DynamoDB.Calls)
		}
	})

	t.Run("AP13 employees hired since a date, newest first, the bound included", func(t *testing.T) {
		var out struct{ EmployeesHiredSince employeeConn }
		r := a.ok(`query($since: Time!) { employeesHiredSince(since: $since, first: 10) { edges { node { name } } pageInfo { hasNextPage } } }`,
			map[string]any{"since": t0.AddDate(2, 0, 0).Format(time.RFC3339)}, &out)
		if got := out.EmployeesHiredSince.names(); !slices.Equal(got, []string{"Barbara", "Edsger", "Hank", "Alan"}) {
			t.Fatalf("hired since: %v", got)
		}
		if r.calls("Query") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("calls %v", r.Extensions.DynamoDB.Calls)
		}
		var page struct{ EmployeesHiredSince employeeConn }
		a.ok(`{ employeesHiredSince(since: "1999-12-31T23:00:00-01:00", first: 2) { edges { node { name } } pageInfo { hasNextPage } } }`, nil, &page)
		if got := page.EmployeesHiredSince.names(); !slices.Equal(got, []string{"Barbara", "Edsger"}) || !page.EmployeesHiredSince.PageInfo.HasNextPage {
			t.Fatalf("first page of all: %v %+v", got, page.EmployeesHiredSince.PageInfo)
		}
	})

	t.Run("AP19 department name duplicated on the employee", func(t *testing.T) {
		var out struct {
			Employee struct{ DepartmentName string }
		}
		r := a.ok(`query($id: ID!) { employee(id: $id) { departmentName } }`, map[string]any{"id": employeeID(e4)}, &out)
		if out.Employee.DepartmentName != "Engineering" || r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("%+v, calls %v", out, r.Extensions.DynamoDB.Calls)
		}
	})

	t.Run("nodes of every HR type share one BatchGetItem", func(t *testing.T) {
		var out struct {
			Nodes []struct{ ID, Name, City string }
		}
		ids := []string{departmentID(sales), employeeID(e3), locationID(f.loc)}
		r := a.ok(`query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Department { name } ... on Employee { name } ... on Location { city } } }`, map[string]any{"ids": ids}, &out)
		if out.Nodes[0].Name != "Sales" || out.Nodes[1].Name != "Edsger" || out.Nodes[2].City != "San Jose" || out.Nodes[2].ID != ids[2] {
			t.Fatalf("nodes %+v", out.Nodes)
		}
		if r.calls("BatchGetItem") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("calls %v", r.Extensions.DynamoDB.Calls)
		}
		missing := model.Employees.IDOf("01J00000000000000000000000")
		if c := a.query(`query($id: ID!) { employee(id: $id) { name } }`, map[string]any{"id": missing}).code(t); c != "NOT_FOUND" {
			t.Fatalf("missing employee: %s", c)
		}
	})
}

func TestLocationsHierarchy(t *testing.T) {
	a := newAPI(t, server.Config{})
	f := a.hr() // United States / California / San Jose / 95113
	f.location("United States", "California", "San Jose", "95125", "2 Willow St")
	f.location("United States", "California", "San Jose Heights", "95120", "3 Heights Rd")
	f.location("united states", "california", "San Francisco", "94105", "4 Mission St")
	f.location("United States", "Oregon", "Portland", "97201", "5 Burnside St")
	f.location("United States", "Cali#fornia", "San Jose", "95113", "6 Trick St")
	odd := f.location("Ger:many", "Ber%lin", "Ber#lin", "10:115", "Invalidenstraße 1")

	q := `query($country: String!, $state: String, $city: String, $postal: String, $first: Int, $after: String) {
	  locations(country: $country, state: $state, city: $city, postalCode: $postal, first: $first, after: $after) {
	    edges { cursor node { id country state city postalCode address } } pageInfo { hasNextPage endCursor }
	  }
	}`
	run := func(vars map[string]any) []string {
		t.Helper()
		var out struct{ Locations locationConn }
		r := a.ok(q, vars, &out)
		if r.calls("Query") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("calls %v", r.Extensions.DynamoDB.Calls)
		}
		return out.Locations.cities()
	}
	cases := []struct {
		name string
		vars map[string]any
		want []string
	}{
		// Key order: case-folded, escaped state, then city, then postal code ("cali%23fornia" <
		// "california"; "san jose heights#" < "san jose#").
		{"a country, any case", map[string]any{"country": "UNITED STATES"}, []string{"San Jose 95113", "San Francisco 94105", "San Jose Heights 95120", "San Jose 95113", "San Jose 95125", "Portland 97201"}},
		{"a state: not the state whose name merely starts the same", map[string]any{"country": "United States", "state": "California"}, []string{"San Francisco 94105", "San Jose Heights 95120", "San Jose 95113", "San Jose 95125"}},
		{"a city: San Jose, not San Jose Heights", map[string]any{"country": "United States", "state": "california", "city": "san jose"}, []string{"San Jose 95113", "San Jose 95125"}},
		{"a postal code", map[string]any{"country": "United States", "state": "California", "city": "San Jose", "postal": "95125"}, []string{"San Jose 95125"}},
		{"a state with a delimiter in it", map[string]any{"country": "United States", "state": "Cali#fornia"}, []string{"San Jose 95113"}},
		{"separators in every part", map[string]any{"country": "ger:many", "state": "BER%LIN", "city": "ber#lin", "postal": "10:115"}, []string{"Ber#lin 10:115"}},
		{"nothing there", map[string]any{"country": "France"}, []string{}},
	}
	for _, c := range cases {
		if got := run(c.vars); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}

	t.Run("pages", func(t *testing.T) {
		var p1, p2 struct{ Locations locationConn }
		a.ok(q, map[string]any{"country": "United States", "state": "California", "first": 3}, &p1)
		a.ok(q, map[string]any{"country": "United States", "state": "California", "first": 3, "after": *p1.Locations.PageInfo.EndCursor}, &p2)
		if got := append(p1.Locations.cities(), p2.Locations.cities()...); !slices.Equal(got, []string{"San Francisco 94105", "San Jose Heights 95120", "San Jose 95113", "San Jose 95125"}) || p2.Locations.PageInfo.HasNextPage {
			t.Fatalf("pages %v", got)
		}
		// The cursor belongs to the state's list, not to the country's.
		r := a.query(q, map[string]any{"country": "United States", "first": 3, "after": *p1.Locations.PageInfo.EndCursor})
		if c := r.code(t); c != "BAD_USER_INPUT" {
			t.Fatalf("cursor of another list: %s", c)
		}
	})

	t.Run("narrower levels need the wider ones", func(t *testing.T) {
		for _, c := range []struct {
			vars  map[string]any
			field string
		}{
			{map[string]any{"country": "United States", "city": "San Jose"}, "city"},
			{map[string]any{"country": "United States", "state": "California", "postal": "95113"}, "postalCode"},
			{map[string]any{"country": " "}, "country"},
			{map[string]any{"country": "United States", "state": ""}, "state"},
		} {
			r := a.query(q, c.vars)
			if code := r.code(t); code != "BAD_USER_INPUT" || r.Errors[0].Extensions["field"] != c.field {
				t.Errorf("%v: %s %v", c.vars, code, r.Errors[0].Extensions)
			}
		}
	})

	t.Run("a location's global ID carries its key, separators and all", func(t *testing.T) {
		var out struct {
			Node struct{ ID, Country, State, City, PostalCode string }
		}
		a.ok(`query($id: ID!) { node(id: $id) { id ... on Location { country state city postalCode } } }`, map[string]any{"id": locationID(odd)}, &out)
		if out.Node.ID != locationID(odd) || out.Node.Country != "Ger:many" || out.Node.State != "Ber%lin" || out.Node.City != "Ber#lin" || out.Node.PostalCode != "10:115" {
			t.Fatalf("node %+v", out.Node)
		}
		forged := model.Locations.IDOf("Ger:many", "Ber%lin", "Ber#lin", "10:115", "not-an-id")
		if c := a.query(`query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": forged}).code(t); c != "BAD_USER_INPUT" {
			t.Fatalf("forged location id: %s", c)
		}
	})
}
