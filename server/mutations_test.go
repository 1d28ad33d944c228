package server_test

import (
	"strings"
	"testing"

	"singletable/graph/model"
	"singletable/server"
)

func TestSaaSMutations(t *testing.T) {
	a := newAPI(t, server.Config{})
	var org struct{ CreateOrganization struct{ ID, Name string } }
	a.ok(`mutation { createOrganization(input: {name: "  Umbrella  "}) { id name } }`, nil, &org)
	if org.CreateOrganization.Name != "Umbrella" {
		t.Fatalf("name %q, want it trimmed", org.CreateOrganization.Name)
	}
	oid := org.CreateOrganization.ID

	createUser := `mutation($org: ID!, $name: String!, $email: String!) { createUser(input: {organizationId: $org, name: $name, email: $email}) { id name email organization { name } } }`
	var user struct {
		CreateUser struct {
			ID, Name, Email string
			Organization    struct{ Name string }
		}
	}
	a.ok(createUser, map[string]any{"org": oid, "name": "Jill", "email": "jill@umbrella.example"}, &user)
	if user.CreateUser.Organization.Name != "Umbrella" {
		t.Fatalf("user %+v", user)
	}

	t.Run("duplicate email in the organization is CONFLICT and writes nothing", func(t *testing.T) {
		r := a.query(createUser, map[string]any{"org": oid, "name": "Other Jill", "email": "JILL@umbrella.example"})
		if c := r.code(t); c != "CONFLICT" || r.Errors[0].Extensions["field"] != "email" {
			t.Fatalf("error %+v", r.Errors)
		}
		var out struct{ Organization struct{ Users userConn } }
		a.ok(`query($id: ID!) { organization(id: $id) { users { edges { node { name } } } } }`, map[string]any{"id": oid}, &out)
		if len(out.Organization.Users.Edges) != 1 {
			t.Fatalf("users after the refused create: %+v", out.Organization.Users.Edges)
		}
		// The same email in another organization is fine.
		var other struct{ CreateOrganization struct{ ID string } }
		a.ok(`mutation { createOrganization(input: {name: "Other"}) { id } }`, nil, &other)
		a.ok(createUser, map[string]any{"org": other.CreateOrganization.ID, "name": "Jill", "email": "jill@umbrella.example"}, nil)
	})

	t.Run("unknown organization is NOT_FOUND", func(t *testing.T) {
		missing := model.Organizations.IDOf("01J00000000000000000000000")
		if c := a.query(createUser, map[string]any{"org": missing, "name": "X", "email": "x@y.io"}).code(t); c != "NOT_FOUND" {
			t.Fatalf("code %q", c)
		}
		r := a.query(`query($id: ID!) { organization(id: $id) { name } }`, map[string]any{"id": missing})
		if c := r.code(t); c != "NOT_FOUND" || string(r.Data) != `{"organization":null}` {
			t.Fatalf("code %q, data %s", c, r.Data)
		}
	})

	t.Run("tickets: create, update, errors", func(t *testing.T) {
		var tk struct {
			CreateTicket struct {
				ID, Status string
				Reporter   struct{ Name string }
			}
		}
		a.ok(`mutation($r: ID!) { createTicket(input: {reporterId: $r, title: "Zombies", body: "In the lab.\nAgain."}) { id status reporter { name } } }`, map[string]any{"r": user.CreateUser.ID}, &tk)
		if tk.CreateTicket.Status != "OPEN" || tk.CreateTicket.Reporter.Name != "Jill" {
			t.Fatalf("ticket %+v", tk)
		}
		var upd struct {
			UpdateTicket struct{ Status, Title, Body string }
		}
		a.ok(`mutation($id: ID!) { updateTicket(input: {id: $id, status: CLOSED, title: "Zombies (fixed)"}) { status title body } }`, map[string]any{"id": tk.CreateTicket.ID}, &upd)
		if upd.UpdateTicket.Status != "CLOSED" || upd.UpdateTicket.Title != "Zombies (fixed)" || upd.UpdateTicket.Body != "In the lab.\nAgain." {
			t.Fatalf("updated %+v", upd)
		}
		missingUser := model.Users.IDOf("01J00000000000000000000000", "01J00000000000000000000000")
		if c := a.query(`mutation($r: ID!) { createTicket(input: {reporterId: $r, title: "t", body: "b"}) { id } }`, map[string]any{"r": missingUser}).code(t); c != "NOT_FOUND" {
			t.Fatalf("unknown reporter: %q", c)
		}
		missingTicket := model.Tickets.IDOf("01J00000000000000000000000")
		if c := a.query(`mutation($id: ID!) { updateTicket(input: {id: $id, status: OPEN}) { id } }`, map[string]any{"id": missingTicket}).code(t); c != "NOT_FOUND" {
			t.Fatalf("unknown ticket: %q", c)
		}
		if c := a.query(`mutation($id: ID!) { updateTicket(input: {id: $id}) { id } }`, map[string]any{"id": tk.CreateTicket.ID}).code(t); c != "BAD_USER_INPUT" {
			t.Fatalf("empty update: %q", c)
		}
	})

	t.Run("bad input is BAD_USER_INPUT naming the field", func(t *testing.T) {
		long := strings.Repeat("x", 201)
		cases := []struct {
			name, query string
			vars        map[string]any
			field       string
		}{
			{"empty name", `mutation { createOrganization(input: {name: "   "}) { id } }`, nil, "name"},
			{"over-long name", `mutation($n: String!) { createOrganization(input: {name: $n}) { id } }`, map[string]any{"n": long}, "name"},
			{"control character", `mutation { createOrganization(input: {name: "a\u0007b"}) { id } }`, nil, "name"},
			{"malformed email", createUser, map[string]any{"org": oid, "name": "N", "email": "not-an-email"}, "email"},
			{"email with a display name", createUser, map[string]any{"org": oid, "name": "N", "email": "Bob <bob@x.io>"}, "email"},
			{"malformed id", createUser, map[string]any{"org": "%%%", "name": "N", "email": "n@x.io"}, "organizationId"},
			{"id of the wrong type", createUser, map[string]any{"org": user.CreateUser.ID, "name": "N", "email": "n@x.io"}, "organizationId"},
			{"id with a lower-case key", createUser, map[string]any{"org": model.Organizations.IDOf("01j00000000000000000000000"), "name": "N", "email": "n@x.io"}, "organizationId"},
			{"first 0", `query($id: ID!) { organization(id: $id) { users(first: 0) { edges { cursor } } } }`, map[string]any{"id": oid}, "first"},
			{"first 101", `{ organizations(first: 101) { edges { cursor } } }`, nil, "first"},
			{"empty title", `mutation($r: ID!) { createTicket(input: {reporterId: $r, title: "", body: "b"}) { id } }`, map[string]any{"r": user.CreateUser.ID}, "title"},
			{"malformed time", `query($id: ID!) { node(id: $id) { ... on User { tickets(createdAfter: "yesterday") { edges { cursor } } } } }`, map[string]any{"id": user.CreateUser.ID}, ""},
		}
		for _, c := range cases {
			r := a.query(c.query, c.vars)
			if code := r.code(t); code != "BAD_USER_INPUT" {
				t.Errorf("%s: code %q (%s), want BAD_USER_INPUT", c.name, code, r.Errors[0].Message)
				continue
			}
			if c.field != "" && r.Errors[0].Extensions["field"] != c.field {
				t.Errorf("%s: field %v, want %s", c.name, r.Errors[0].Extensions["field"], c.field)
			}
		}
	})
}
