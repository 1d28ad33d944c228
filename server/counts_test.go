package server_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"singletable/repository/commerce"
	"singletable/repository/saas"
	"singletable/server"
)

// wholeLists lets an operation read whole lists of whole lists (countedTree).
var wholeLists = server.Config{ComplexityLimit: 1 << 40}

// countedTree reads every counted list of the dataset whole (first: 100 holds each), with its
// totalCount: each organization's users and each user's tickets, all and by status; each
// department's employees and their direct reports; each customer's orders, all and by status.
const countedTree = `{
  organizations(first: 100) { edges { node { users(first: 100) { totalCount pageInfo { hasNextPage } edges { node {
    all: tickets(first: 100) { totalCount pageInfo { hasNextPage } edges { cursor } }
    open: tickets(first: 100, status: OPEN) { totalCount pageInfo { hasNextPage } edges { cursor } }
    pending: tickets(first: 100, status: PENDING) { totalCount pageInfo { hasNextPage } edges { cursor } }
    closed: tickets(first: 100, status: CLOSED) { totalCount pageInfo { hasNextPage } edges { cursor } }
  } } } } } }
  departments(first: 100) { edges { node { employees(first: 100) { totalCount pageInfo { hasNextPage } edges { node {
    directReports(first: 100) { totalCount pageInfo { hasNextPage } edges { cursor } }
  } } } } } }
  customers(first: 100) { edges { node {
    all: orders(first: 100) { totalCount pageInfo { hasNextPage } edges { cursor } }
    open: orders(first: 100, status: OPEN) { totalCount pageInfo { hasNextPage } edges { cursor } }
    shipped: orders(first: 100, status: SHIPPED) { totalCount pageInfo { hasNextPage } edges { cursor } }
    delivered: orders(first: 100, status: DELIVERED) { totalCount pageInfo { hasNextPage } edges { cursor } }
    cancelled: orders(first: 100, status: CANCELLED) { totalCount pageInfo { hasNextPage } edges { cursor } }
  } } }
}`

// countsMatch walks an answer and checks every connection that has a totalCount against the
// edges it holds (whole lists: no next page); it returns how many it checked. A null totalCount
// is an error: every parent here is counted.
func countsMatch(t *testing.T, data json.RawMessage) int {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	checked := 0
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case map[string]any:
			if total, ok := v["totalCount"]; ok {
				edges, _ := v["edges"].([]any)
				more, _ := v["pageInfo"].(map[string]any)["hasNextPage"].(bool)
				if n, ok := total.(float64); !ok || int(n) != len(edges) || more {
					t.Errorf("%s: totalCount %v, the list has %d (more: %v)", path, total, len(edges), more)
				}
				checked++
			}
			for k, e := range v {
				walk(path+"."+k, e)
			}
		}
	}
	walk("data", v)
	return checked
}

// totalCount answers the size of each counted list as its parent's counters keep it: for a list
// with no filter or a status filter, exactly; null with a time range and for the lists no counter
// follows. New parents start at 0.
func TestTotalCountOfEveryConnection(t *testing.T) {
	a := newAPI(t, wholeLists)
	d := a.seedSaaS(1, 2, 3)
	u := d.users[d.orgs[0].ID][0]
	closed := saas.TicketClosed
	if _, err := a.repo.UpdateTicket(t.Context(), u.OrgID, d.tickets[u.ID][0].ID, saas.TicketPatch{Status: &closed}); err != nil {
		t.Fatal(err)
	}
	f := a.hr()
	dept := f.department("Counted")
	boss := f.hire(dept, "Boss", hireOpts{})
	for i := range 3 {
		f.hire(dept, fmt.Sprintf("Report %d", i), hireOpts{manager: boss, mentor: boss})
	}
	c := a.seedCommerce(1, 3, 1)
	if _, err := a.repo.UpdateOrderStatus(t.Context(), c.customers[0].ID, c.orders[c.customers[0].ID][0].ID, commerce.OrderCancelled); err != nil {
		t.Fatal(err)
	}
	r := a.ok(countedTree, nil, nil)
	// The users; 4 ticket lists of each of 2 users; the employees and the reports of each of 4;
	// 5 order lists.
	if n := countsMatch(t, r.Data); n != 1+2*4+1+4+5 {
		t.Errorf("%d counted lists checked", n)
	}

	var out struct {
		User struct {
			All, Open, Closed, Since struct{ TotalCount *int }
		}
		Employee struct {
			DirectReports, Mentees struct{ TotalCount *int }
		}
		EmployeesByJobTitle struct{ TotalCount *int }
		Customer            struct {
			All, Cancelled, Before struct{ TotalCount *int }
		}
		OrdersByStatus struct{ TotalCount *int }
	}
	a.ok(`query($u: ID!, $e: ID!, $c: ID!) {
	  user(id: $u) { all: tickets { totalCount } open: tickets(status: OPEN) { totalCount } closed: tickets(status: CLOSED) { totalCount }
	    since: tickets(createdAfter: "2000-01-01T00:00:00Z") { totalCount } }
	  employee(id: $e) { directReports { totalCount } mentees { totalCount } }
	  employeesByJobTitle(jobTitle: "Engineer") { totalCount }
	  customer(id: $c) { all: orders { totalCount } cancelled: orders(status: CANCELLED) { totalCount }
	    before: orders(placedBefore: "2999-01-01T00:00:00Z") { totalCount } }
	  ordersByStatus(status: OPEN) { totalCount }
	}`, map[string]any{"u": userID(u), "e": employeeID(boss), "c": customerID(c.customers[0])}, &out)
	for name, got := range map[string]struct {
		v    *int
		want int
		null bool
	}{
		"tickets":               {out.User.All.TotalCount, 3, false},
		"tickets OPEN":          {out.User.Open.TotalCount, 2, false},
		"tickets CLOSED":        {out.User.Closed.TotalCount, 1, false},
		"tickets createdAfter":  {out.User.Since.TotalCount, 0, true},
		"directReports":         {out.Employee.DirectReports.TotalCount, 3, false},
		"mentees":               {out.Employee.Mentees.TotalCount, 0, true},
		"employeesByJobTitle":   {out.EmployeesByJobTitle.TotalCount, 0, true},
		"orders":                {out.Customer.All.TotalCount, 3, false},
		"orders CANCELLED":      {out.Customer.Cancelled.TotalCount, 1, false},
		"orders placedBefore":   {out.Customer.Before.TotalCount, 0, true},
		"ordersByStatus (root)": {out.OrdersByStatus.TotalCount, 0, true},
	} {
		if got.null != (got.v == nil) || got.v != nil && *got.v != got.want {
			t.Errorf("%s: totalCount %v, want %d (null: %v)", name, got.v, got.want, got.null)
		}
	}

	// Objects just created start at 0.
	var created struct {
		CreateOrganization struct{ Users struct{ TotalCount *int } }
	}
	a.ok(`mutation { createOrganization(input: {name: "Empty"}) { users { totalCount } } }`, nil, &created)
	if n := created.CreateOrganization.Users.TotalCount; n == nil || *n != 0 {
		t.Errorf("a new organization's users: totalCount %v", n)
	}
}
