package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"singletable/auth"
	"singletable/graph/model"
)

// missingTicketID is a ticket id no table holds.
const missingTicketID = "01KZZZZZZZZZZZZZZZZZZZZZZZ"

// legacyTicketID is the global ID a ticket had before IDs carried its organization.
func legacyTicketID(id string) string { return model.Tickets.IDOf(id) }

// An org role learns nothing of another organization's ticket from anything a response carries:
// for every way of naming it (its own ID, a forged ID pairing the caller's organization with its
// id, the legacy ID of its id alone), node, nodes, ticket and updateTicket answer exactly what
// they answer for a ticket that does not exist named the same way: the same HTTP status, errors,
// data, and cost (calls, capacity, rounds). The foreign ticket has a 10 KB body, so reading it
// would cost 1.5 capacity units where a missing item costs nothing.
func TestAForeignTicketCostsWhatAMissingOneCosts(t *testing.T) {
	f := newTenants(t)
	big, err := f.a.repo.CreateTicket(context.Background(), f.orgB.ID, f.userB.ID, "zebra big", strings.Repeat("z", 10_000))
	if err != nil {
		t.Fatal(err)
	}
	orgA, orgB := f.orgA.ID, f.orgB.ID
	names := []struct{ what, foreign, missing string }{
		{"its own ID", model.Tickets.IDOf(orgB, big.ID), model.Tickets.IDOf(orgB, missingTicketID)},
		{"a forged ID with the caller's organization", model.Tickets.IDOf(orgA, big.ID), model.Tickets.IDOf(orgA, missingTicketID)},
		{"a legacy ID", legacyTicketID(big.ID), legacyTicketID(missingTicketID)},
	}
	operations := []struct {
		name  string
		query string
		vars  func(id string) map[string]any
	}{
		{"ticket", `query($id: ID!) { ticket(id: $id) { id title body } }`, idVars},
		{"node", `query($id: ID!) { node(id: $id) { id ... on Ticket { title body } } }`, idVars},
		{"nodes", `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Ticket { title body } } }`,
			func(id string) map[string]any { return map[string]any{"ids": []string{id}} }},
		{"updateTicket", `mutation($in: UpdateTicketInput!) { updateTicket(input: $in) { id title } }`,
			func(id string) map[string]any {
				return map[string]any{"in": map[string]any{"id": id, "title": "defaced"}}
			}},
	}
	for _, r := range []auth.Role{auth.RoleOrgMember, auth.RoleOrgAdmin} {
		a := f.as(r)
		for _, n := range names {
			for _, op := range operations {
				foreign := a.raw(op.query, op.vars(n.foreign))
				missing := a.raw(op.query, op.vars(n.missing))
				if got, want := observable(t, foreign), observable(t, missing); got != want {
					t.Errorf("%s, %s of B's ticket by %s:\n got %s\nwant %s (a missing ticket)", r, op.name, n.what, got, want)
				}
				leaksNothing(t, string(r)+" "+op.name+" "+n.what, foreign)
			}
		}
	}
	// Nothing was written to B's ticket.
	back := f.a.query(`query($id: ID!) { ticket(id: $id) { title } }`, map[string]any{"id": ticketID(big)})
	if !strings.Contains(string(back.Data), "zebra big") {
		t.Fatalf("B's ticket changed: %s", back.Data)
	}
}

// observable is everything a caller sees of a response, as one comparable string: the HTTP status,
// the errors with their paths and extensions, the data, and the cost reported in
// extensions.dynamodb (calls by operation, consumed capacity, rounds).
func observable(t *testing.T, r rawResponse) string {
	t.Helper()
	u := r.Extensions.DynamoDB
	if u == nil {
		t.Fatalf("no extensions.dynamodb in %s", r.body)
	}
	b, err := json.Marshal(map[string]any{
		"status": r.status, "errors": r.Errors, "data": r.Data,
		"calls": u.Calls, "capacity": u.CapacityUnits, "totalCapacity": u.TotalCapacity, "rounds": u.Rounds,
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func idVars(id string) map[string]any { return map[string]any{"id": id} }

// Ticket IDs handed out before they carried the organization keep working: an org role's own
// ticket is found by key with its organization (one BatchGetItem, as with today's ID), admin's
// with one Query of the ticket's partition, and a role without organizations gets NOT_FOUND
// without a read. updateTicket accepts them too.
func TestLegacyTicketIDsStillWork(t *testing.T) {
	f := newTenants(t)
	legacy := legacyTicketID(f.ticketA.ID)
	query := `query($id: ID!) { ticket(id: $id) { id title } node(id: $id) { id } }`
	for _, c := range []struct {
		role  auth.Role
		calls map[string]int
	}{
		{auth.RoleOrgMember, map[string]int{"BatchGetItem": 1}},
		{auth.RoleAdmin, map[string]int{"Query": 1}},
	} {
		resp := f.as(c.role).raw(query, map[string]any{"id": legacy})
		var out struct {
			Ticket struct{ ID, Title string }
			Node   struct{ ID string }
		}
		if err := json.Unmarshal(resp.Data, &out); err != nil || len(resp.Errors) != 0 || out.Ticket.Title != f.ticketA.Title {
			t.Fatalf("%s: legacy ID: %s", c.role, resp.body)
		}
		// The answer names the ticket by today's ID.
		if out.Ticket.ID != ticketID(f.ticketA) || out.Node.ID != ticketID(f.ticketA) {
			t.Errorf("%s: ids %q %q, want today's %q", c.role, out.Ticket.ID, out.Node.ID, ticketID(f.ticketA))
		}
		if !sameCalls(resp.Extensions.DynamoDB.Calls, c.calls) {
			t.Errorf("%s: calls %v, want %v", c.role, resp.Extensions.DynamoDB.Calls, c.calls)
		}
	}
	node := f.as(auth.RoleHR).raw(`query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": legacy})
	if node.code(t) != "NOT_FOUND" || node.Extensions.DynamoDB.TotalCalls != 0 {
		t.Errorf("hr node(legacy ticket): %s", node.body)
	}
	upd := f.as(auth.RoleOrgMember).raw(`mutation($in: UpdateTicketInput!) { updateTicket(input: $in) { id title } }`,
		map[string]any{"in": map[string]any{"id": legacy, "title": "renamed through a legacy ID"}})
	if len(upd.Errors) != 0 || !strings.Contains(upd.body, "renamed through a legacy ID") {
		t.Fatalf("updateTicket with a legacy ID: %s", upd.body)
	}
}
