package server_test

import (
	"fmt"
	"testing"
	"time"

	"singletable/repository/hr"
	"singletable/repository/repotest"
	"singletable/server"
)

// The call budget (no N+1) for the HR tree: 2 departments fetched by nodes(ids:), 3
// employees each, every employee's department and manager.
//
//	BatchGetItem 1  the 2 departments (AP8), and at the same time (their ids are in the global IDs):
//	Query ×2        the DEPARTMENT relation items of each department on GSI1 (AP9), concurrently
//	BatchGetItem 2  the 6 employees of BOTH departments (AP9), and with them their 6 MANAGER
//	                relation items (AP10: keys known from the employee ids, read ahead because the
//	                operation asks for manager). The DEPARTMENT relation items were read by the
//	                Queries and are primed, and the departments by step 1: department{name} is free.
//	BatchGetItem 3  the managers not read yet (AP10): here the one head of both departments
//
// The budget is exactly 2 Query, at most 4 BatchGetItem, no GetItem, no Scan; the design
// does it in 3 BatchGetItem and 3 rounds.
func TestNestedHRQueryCallBudget(t *testing.T) {
	a := newAPI(t, server.Config{}, repotest.WithLatency(20*time.Millisecond, 0))
	f := a.hr()
	d1, d2, board := f.department("Alpha"), f.department("Beta"), f.department("Board")
	head := f.hire(board, "Head", hireOpts{})
	a1 := f.hire(d1, "a1", hireOpts{manager: head})
	f.hire(d1, "a2", hireOpts{manager: a1})
	f.hire(d1, "a3", hireOpts{manager: a1})
	b1 := f.hire(d2, "b1", hireOpts{manager: head})
	f.hire(d2, "b2", hireOpts{manager: b1})
	f.hire(d2, "b3", hireOpts{manager: b1})
	f.hire(d2, "b4 (not on the page)", hireOpts{manager: b1})

	var out struct {
		Nodes []struct {
			Name      string
			Employees struct {
				Edges []struct {
					Node struct {
						Name       string
						Department struct{ Name string }
						Manager    struct{ Name string }
					}
				}
			}
		}
	}
	r := a.ok(`query Tree($ids: [ID!]!) {
	  nodes(ids: $ids) {
	    ... on Department {
	      name
	      employees(first: 3) { edges { node { name department { name } manager { name } } } }
	    }
	  }
	}`, map[string]any{"ids": []string{departmentID(d1), departmentID(d2)}}, &out)

	want := []struct {
		dept      string
		employees [3][2]string // name, manager
	}{
		{"Alpha", [3][2]string{{"a1", "Head"}, {"a2", "a1"}, {"a3", "a1"}}},
		{"Beta", [3][2]string{{"b1", "Head"}, {"b2", "b1"}, {"b3", "b1"}}},
	}
	if len(out.Nodes) != 2 {
		t.Fatalf("got %d departments", len(out.Nodes))
	}
	for i, w := range want {
		got := out.Nodes[i]
		if got.Name != w.dept || len(got.Employees.Edges) != 3 {
			t.Fatalf("department %d: %q with %d employees", i, got.Name, len(got.Employees.Edges))
		}
		for j, e := range got.Employees.Edges {
			if e.Node.Name != w.employees[j][0] || e.Node.Department.Name != w.dept || e.Node.Manager.Name != w.employees[j][1] {
				t.Errorf("%s employee %d: %+v, want %v", w.dept, j, e.Node, w.employees[j])
			}
		}
	}
	u := r.Extensions.DynamoDB
	t.Logf("DynamoDB calls: %v, rounds %d, capacity %.1f", u.Calls, u.Rounds, u.TotalCapacity)
	if got := r.calls("Query"); got != 2 {
		t.Errorf("Query calls = %d, want exactly 2", got)
	}
	if got := r.calls("BatchGetItem"); got > 4 {
		t.Errorf("BatchGetItem calls = %d, want at most 4", got)
	}
	if r.calls("GetItem") != 0 || r.calls("Scan") != 0 {
		t.Errorf("GetItem = %d, Scan = %d, want none", r.calls("GetItem"), r.calls("Scan"))
	}
	if u.TotalCalls != r.calls("Query")+r.calls("BatchGetItem") {
		t.Errorf("unexpected operations: %v", u.Calls)
	}
	if got := r.calls("BatchGetItem"); got != 3 {
		t.Errorf("BatchGetItem calls = %d, the design makes 3", got)
	}
	if u.Rounds != 3 {
		t.Errorf("rounds = %d, want 3 (departments with the relation Queries, employees with their manager relations, managers)", u.Rounds)
	}
}

// Employees and departments fetched by nodes(ids:) look their to-one fields up for all of them
// at once, as lists do: the employees' relation items in one batch, then the relations' targets
// and the departments' locations in one more.
func TestHRNodesReadTheirRelationsAhead(t *testing.T) {
	a := newAPI(t, server.Config{}, repotest.WithLatency(5*time.Millisecond, 0))
	f := a.hr()
	d1, d2 := f.department("Alpha"), f.department("Beta")
	boss := f.hire(d1, "Boss", hireOpts{})
	ids := []string{departmentID(d2)}
	for i := range 8 {
		e := f.hire([]*hr.Department{d1, d2}[i%2], fmt.Sprintf("e%d", i), hireOpts{manager: boss, mentor: boss})
		ids = append(ids, employeeID(e))
	}
	var out struct {
		Nodes []struct {
			Name       string
			Location   *struct{ City string }
			Department *struct{ Name string }
			Manager    *struct{ Name string }
			Mentor     *struct{ Name string }
		}
	}
	r := a.ok(`query($ids: [ID!]!) { nodes(ids: $ids) {
	  ... on Department { name location { city } }
	  ... on Employee { name department { name } manager { name } mentor { name } }
	} }`, map[string]any{"ids": ids}, &out)
	if len(out.Nodes) != 9 || out.Nodes[0].Location == nil || out.Nodes[0].Location.City == "" {
		t.Fatalf("nodes %+v", out.Nodes)
	}
	for i, n := range out.Nodes[1:] {
		if n.Department == nil || n.Department.Name != []string{"Alpha", "Beta"}[i%2] || n.Manager == nil || n.Manager.Name != "Boss" || n.Mentor == nil || n.Mentor.Name != "Boss" {
			t.Fatalf("employee %d: %+v", i, n)
		}
	}
	u := r.Extensions.DynamoDB
	t.Logf("DynamoDB calls: %v, rounds %d", u.Calls, u.Rounds)
	// 1: the department and the employees; 2: the location and the 24 relation items; 3: the
	// relations' targets (the departments and Boss).
	if r.calls("BatchGetItem") != 3 || u.TotalCalls != 3 {
		t.Errorf("calls %v, want exactly 3 BatchGetItem", u.Calls)
	}
}
