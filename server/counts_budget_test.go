package server_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

// totalCount is read from the counters of the list's parent item, and every counted list is read
// with its parent's item at hand: a lookup's combined read (the parent's item is in the collection
// its list is read from), a list of parents, the level's batch of lookups by key. So selecting
// totalCount costs no call at all, whatever the depth: the calls are those of the same operation
// without it, to the call.
func TestTotalCountCostsTheCallsOfItsLevel(t *testing.T) {
	a := newAPI(t, wholeLists)
	d := a.seedSaaS(3, 3, 2)
	f := a.hr()
	dept := f.department("Counted")
	boss := f.hire(dept, "Boss", hireOpts{})
	for i := range 3 {
		f.hire(dept, fmt.Sprintf("Report %d", i), hireOpts{manager: boss})
	}
	c := a.seedCommerce(3, 2, 1)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	vars := map[string]any{
		"org": orgID(org), "orgs": []string{orgID(d.orgs[0]), orgID(d.orgs[1]), orgID(d.orgs[2])},
		"user": userID(user), "dept": departmentID(dept), "boss": employeeID(boss), "cust": customerID(c.customers[0]),
	}
	const counted = "totalCount pageInfo { hasNextPage }"
	for _, tc := range []struct {
		name, query string
	}{
		{"an organization's users, the organization read with them", `query($org: ID!) { organization(id: $org) { name users { %s edges { node { name } } } } }`},
		{"each organization's users and each user's tickets", `query($orgs: [ID!]!) { nodes(ids: $orgs) { ... on Organization { name users { %[1]s edges { node { name tickets { %[1]s edges { node { title } } } } } } } } }`},
		{"a user's tickets by status", `query($user: ID!) { user(id: $user) { name tickets(status: OPEN) { %s edges { node { title } } } } }`},
		{"a user's tickets, the user not selected", `query($user: ID!) { user(id: $user) { tickets { %s edges { node { title } } } } }`},
		{"a department's employees", `query($dept: ID!) { department(id: $dept) { name employees { %s edges { node { name } } } } }`},
		{"each employee's direct reports", `query($dept: ID!) { department(id: $dept) { name employees { edges { node { name directReports { %s edges { node { name } } } } } } } }`},
		{"a manager's direct reports", `query($boss: ID!) { employee(id: $boss) { name directReports { %s edges { node { name } } } } }`},
		{"a customer's orders by status", `query($cust: ID!) { customer(id: $cust) { name orders(status: OPEN) { %s edges { node { status } } } } }`},
		{"each customer's orders", `query { customers { edges { node { name orders { %s edges { node { status } } } } } } }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			without := a.ok(strings.ReplaceAll(fmt.Sprintf(tc.query, counted), "totalCount", ""), vars, nil)
			with := a.ok(fmt.Sprintf(tc.query, counted), vars, nil)
			if got, want := with.Extensions.DynamoDB.Calls, without.Extensions.DynamoDB.Calls; !maps.Equal(got, want) {
				t.Errorf("calls with totalCount %v, without %v", got, want)
			}
			if n := countsMatch(t, with.Data); n == 0 {
				t.Error("no totalCount in the answer")
			}
		})
	}
}
