package server_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"singletable/auth"
	"singletable/graph/model"
	"singletable/repository/saas"
	"singletable/server"
)

const (
	deleteTicketOp = `mutation($i: DeleteTicketInput!) { deleteTicket(input: $i) { deletedId } }`
	deleteUserOp   = `mutation($i: DeleteUserInput!) { deleteUser(input: $i) { deletedId } }`
)

// The corrections and removals of the SaaS domain through the API: only the fields given change,
// a delete answers the ID it was given, deleting twice is NOT_FOUND, a user with tickets is
// CONFLICT with their number in extensions.count unless cascade.
func TestCorrectionsAndRemovalsOverGraphQL(t *testing.T) {
	a := newAPI(t, server.Config{})
	d := a.seedSaaS(1, 2, 2)
	org := d.orgs[0]
	u, other := d.users[org.ID][0], d.users[org.ID][1]

	var upd struct{ UpdateUser struct{ Name, Email string } }
	a.ok(`mutation($i: UpdateUserInput!) { updateUser(input: $i) { name email } }`,
		map[string]any{"i": map[string]any{"id": userID(u), "email": "new@x.example"}}, &upd)
	if upd.UpdateUser.Name != u.Name || upd.UpdateUser.Email != "new@x.example" {
		t.Fatalf("only the email changes: %+v", upd)
	}
	var org2 struct{ UpdateOrganization struct{ Name string } }
	a.ok(`mutation($i: UpdateOrganizationInput!) { updateOrganization(input: $i) { name } }`,
		map[string]any{"i": map[string]any{"id": orgID(org), "name": "Renamed"}}, &org2)
	if org2.UpdateOrganization.Name != "Renamed" {
		t.Fatalf("rename: %+v", org2)
	}

	tk := ticketID(d.tickets[u.ID][0])
	var del struct{ DeleteTicket struct{ DeletedID string } }
	a.ok(deleteTicketOp, map[string]any{"i": map[string]any{"id": tk, "expectedVersion": 1}}, &del)
	if del.DeleteTicket.DeletedID != tk {
		t.Fatalf("deletedId %q, want %q", del.DeleteTicket.DeletedID, tk)
	}
	if c := a.query(deleteTicketOp, map[string]any{"i": map[string]any{"id": tk}}).code(t); c != "NOT_FOUND" {
		t.Fatalf("deleting twice: %s", c)
	}
	r := a.query(deleteUserOp, map[string]any{"i": map[string]any{"id": userID(u)}})
	if r.code(t) != "CONFLICT" || r.Errors[0].Extensions["count"] != float64(1) {
		t.Fatalf("a user with a ticket: %+v", r.Errors)
	}
	a.ok(deleteUserOp, map[string]any{"i": map[string]any{"id": userID(u), "cascade": true}}, nil)
	var left struct {
		Organization struct {
			Users struct {
				TotalCount int
				Edges      []struct{ Node struct{ ID string } }
			}
		}
	}
	a.ok(`query($id: ID!) { organization(id: $id) { users { totalCount edges { node { id } } } } }`, map[string]any{"id": orgID(org)}, &left)
	if left.Organization.Users.TotalCount != 1 || len(left.Organization.Users.Edges) != 1 || left.Organization.Users.Edges[0].Node.ID != userID(other) {
		t.Fatalf("users after the delete: %+v", left)
	}
	a.ok(`mutation($i: DeleteOrganizationInput!) { deleteOrganization(input: $i) { deletedId } }`, map[string]any{"i": map[string]any{"id": orgID(org)}}, nil)
	if c := a.query(`query($id: ID!) { organization(id: $id) { name } }`, map[string]any{"id": orgID(org)}).code(t); c != "NOT_FOUND" {
		t.Fatalf("the deleted organization: %s", c)
	}
}

// Every new write answers an object of another tenant exactly as a missing one (same message,
// same extensions), and refuses the roles the policy table does not list.
func TestNewWritesTreatForeignAsMissing(t *testing.T) {
	f := newTenants(t)
	missingTicket := model.Tickets.ID(&saas.Ticket{OrgID: f.orgB.ID, ID: "01J00000000000000000000000"})
	missingCustomer := model.Customers.IDOf("01J00000000000000000000000")
	cases := []struct {
		role             auth.Role
		op               string
		foreign, missing map[string]any
	}{
		{auth.RoleOrgAdmin, deleteTicketOp, map[string]any{"id": ticketID(f.ticketB)}, map[string]any{"id": missingTicket}},
		{auth.RoleOrgAdmin, deleteUserOp, map[string]any{"id": userID(f.userB)}, map[string]any{"id": model.Users.IDOf(f.orgB.ID, "01J00000000000000000000000")}},
		{auth.RoleOrgAdmin, `mutation($i: UpdateOrganizationInput!) { updateOrganization(input: $i) { name } }`,
			map[string]any{"id": orgID(f.orgB), "name": "x"}, map[string]any{"id": model.Organizations.IDOf("01J00000000000000000000000"), "name": "x"}},
		{auth.RoleCustomer, `mutation($i: UpdateCustomerInput!) { updateCustomer(input: $i) { name } }`,
			map[string]any{"id": customerID(f.custB), "name": "x"}, map[string]any{"id": missingCustomer, "name": "x"}},
		{auth.RoleCustomer, `mutation($i: RemoveMailingAddressInput!) { removeMailingAddress(input: $i) { name } }`,
			map[string]any{"customerId": customerID(f.custB), "label": "Home"}, map[string]any{"customerId": missingCustomer, "label": "Home"}},
	}
	for _, c := range cases {
		api := f.as(c.role)
		foreign := api.raw(c.op, map[string]any{"i": c.foreign})
		missing := api.raw(c.op, map[string]any{"i": c.missing})
		leaksNothing(t, c.op, foreign)
		if len(foreign.Errors) != 1 || foreign.codes()[0] != "NOT_FOUND" || foreign.Errors[0].Message != missing.Errors[0].Message ||
			!reflect.DeepEqual(foreign.Errors[0].Extensions, missing.Errors[0].Extensions) {
			t.Errorf("%s as %s: foreign %+v, missing %+v", c.op, c.role, foreign.Errors, missing.Errors)
		}
	}
	for role, op := range map[auth.Role]string{
		auth.RoleOrgMember: deleteTicketOp,
		auth.RoleOrgAdmin:  `mutation($i: DeleteOrganizationInput!) { deleteOrganization(input: $i) { deletedId } }`,
		auth.RoleCustomer:  `mutation($i: DeleteCustomerInput!) { deleteCustomer(input: $i) { deletedId } }`,
		auth.RoleSales:     `mutation($i: RemoveEmployeeInput!) { removeEmployee(input: $i) { deletedId } }`,
	} {
		if c := f.as(role).query(op, map[string]any{"i": map[string]any{"id": "x"}}).code(t); c != "FORBIDDEN" {
			t.Errorf("%s as %s: %s, want FORBIDDEN", op, role, c)
		}
	}
}

// A removed ticket reaches its organization's subscribers as REMOVED, with the ticket as it was;
// a user removed with cascade, one REMOVED per ticket it reported.
func TestDeletesReachSubscribersAsRemoved(t *testing.T) {
	a := newLiveAPI(t, server.Config{})
	d := a.seedSaaS(1, 1, 3)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	tickets := d.tickets[user.ID]
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", `subscription($org: ID!) { ticketChanged(organizationId: $org) { kind ticket { id title } } }`, map[string]any{"org": orgID(org)})
	time.Sleep(200 * time.Millisecond)
	a.ok(deleteTicketOp, map[string]any{"i": map[string]any{"id": ticketID(tickets[0])}}, nil)
	a.ok(deleteUserOp, map[string]any{"i": map[string]any{"id": userID(user), "cascade": true}}, nil)
	removed := map[string]bool{}
	for len(removed) < len(tickets) {
		e, m, ok := ws.nextEvent(waitFor)
		if !ok {
			t.Fatalf("REMOVED events for %d of %d tickets, then none: %+v", len(removed), len(tickets), m)
		}
		var v struct {
			TicketChanged struct {
				Kind   string
				Ticket struct{ ID, Title string }
			}
		}
		if err := jsonUnmarshal(e.Data, &v); err != nil || len(e.Errors) > 0 {
			t.Fatalf("event %s: %v %+v", e.Data, err, e.Errors)
		}
		switch v.TicketChanged.Kind {
		case "CREATED": // the seed's, as the stream holds them
		case "REMOVED":
			if removed[v.TicketChanged.Ticket.ID] {
				t.Fatalf("two REMOVED events for %s", v.TicketChanged.Ticket.ID)
			}
			removed[v.TicketChanged.Ticket.ID] = true
		default:
			t.Fatalf("event %+v", v)
		}
	}
	for _, tk := range tickets {
		if !removed[ticketID(tk)] {
			t.Errorf("no REMOVED event for %s", tk.Title)
		}
	}
}

// A deleted organization's users and tickets are gone at once, before the sweep (which no test
// server runs) reaches them: every lookup by ID answers as for a missing object, and writes under
// the organization are NOT_FOUND.
func TestDeletedOrganizationsUsersAndTicketsAreGoneAtOnce(t *testing.T) {
	a := newAPI(t, server.Config{})
	d := a.seedSaaS(2, 1, 1)
	org, kept := d.orgs[0], d.orgs[1]
	u, tk := d.users[org.ID][0], d.tickets[d.users[org.ID][0].ID][0]
	keptUser := d.users[kept.ID][0]
	a.ok(`mutation($i: DeleteOrganizationInput!) { deleteOrganization(input: $i) { deletedId } }`, map[string]any{"i": map[string]any{"id": orgID(org)}}, nil)

	for name, q := range map[string]string{
		"user":        `query($id: ID!) { user(id: $id) { id } }`,
		"ticket":      `query($id: ID!) { ticket(id: $id) { id } }`,
		"node (user)": `query($id: ID!) { node(id: $id) { id } }`,
	} {
		id := userID(u)
		if name == "ticket" {
			id = ticketID(tk)
		}
		if c := a.query(q, map[string]any{"id": id}).code(t); c != "NOT_FOUND" {
			t.Errorf("%s of the deleted organization: %s", name, c)
		}
	}
	var nodes struct{ Nodes []*struct{ ID string } }
	r := a.query(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": []string{userID(u), ticketID(tk), userID(keptUser)}})
	if err := json.Unmarshal(r.Data, &nodes); err != nil {
		t.Fatal(err)
	}
	if len(nodes.Nodes) != 3 || nodes.Nodes[0] != nil || nodes.Nodes[1] != nil || nodes.Nodes[2] == nil {
		t.Errorf("nodes: %+v", nodes.Nodes)
	}
	writes := map[string]struct {
		q string
		i map[string]any
	}{
		"createTicket": {`mutation($i: CreateTicketInput!) { createTicket(input: $i) { id } }`, map[string]any{"reporterId": userID(u), "title": "late", "body": "b"}},
		"updateTicket": {`mutation($i: UpdateTicketInput!) { updateTicket(input: $i) { id } }`, map[string]any{"id": ticketID(tk), "title": "late"}},
		"updateUser":   {`mutation($i: UpdateUserInput!) { updateUser(input: $i) { id } }`, map[string]any{"id": userID(u), "name": "Late"}},
	}
	for name, w := range writes {
		if c := a.query(w.q, map[string]any{"i": w.i}).code(t); c != "NOT_FOUND" {
			t.Errorf("%s under the deleted organization: %s", name, c)
		}
	}
}
