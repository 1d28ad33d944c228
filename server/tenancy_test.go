package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"singletable/auth"
	"singletable/graph/model"
)

// missingOrgID names an organization that does not exist.
var missingOrgID = model.Organizations.IDOf("01KAAAAAAAAAAAAAAAAAAAAAAA")

// An org role reading another organization's objects by node, nodes, typed lookups and nested
// fields learns nothing: NOT_FOUND exactly as for a missing object, null in nodes, none of B's
// strings anywhere in the response, and no DynamoDB call where the ID names the tenant.
func TestOrgRolesCannotReadAnotherOrganization(t *testing.T) {
	f := newTenants(t)
	missing := f.a.raw(`query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": missingOrgID})
	for _, r := range []auth.Role{auth.RoleOrgMember, auth.RoleOrgAdmin} {
		a := f.as(r)
		for name, id := range map[string]string{"org B": orgID(f.orgB), "user of B": userID(f.userB), "ticket of B": ticketID(f.ticketB),
			"customer": customerID(f.custB), "order": orderID(f.orderB), "department": departmentID(f.dept), "employee": employeeID(f.emp1)} {
			resp := a.raw(`query($id: ID!) { node(id: $id) { id ... on Organization { name users { edges { node { email } } } } ... on User { name email } ... on Ticket { title body } ... on Customer { name email } } }`, map[string]any{"id": id})
			if resp.code(t) != "NOT_FOUND" || string(resp.Data) != `{"node":null}` {
				t.Errorf("%s: node(%s) = %s", r, name, resp.body)
			}
			leaksNothing(t, string(r)+" node "+name, resp)
			if resp.Extensions.DynamoDB.TotalCalls != 0 {
				t.Errorf("%s: node(%s) read the table although its ID decides", r, name)
			}
		}
		// The same answer as for an organization that does not exist: no existence oracle.
		hidden := a.raw(`query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": orgID(f.orgB)})
		if hidden.Errors[0].Message != missing.Errors[0].Message || string(hidden.Data) != string(missing.Data) {
			t.Errorf("hidden %s differs from missing %s", hidden.body, missing.body)
		}
		ids := []string{orgID(f.orgA), orgID(f.orgB), userID(f.userB), ticketID(f.ticketB), ticketID(f.ticketA), customerID(f.custB)}
		resp := a.raw(`query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Organization { name } ... on User { email } ... on Ticket { title reporter { email } } ... on Customer { email } } }`, map[string]any{"ids": ids})
		var nodes struct{ Nodes []*struct{ ID string } }
		if err := json.Unmarshal(resp.Data, &nodes); err != nil || len(nodes.Nodes) != 6 {
			t.Fatalf("nodes: %s", resp.body)
		}
		for i, n := range nodes.Nodes {
			if visible := i == 0 || i == 4; (n != nil) != visible || (visible && n.ID != ids[i]) {
				t.Errorf("%s: nodes[%d] = %+v", r, i, n)
			}
		}
		if codes := resp.codes(); len(codes) != 4 || codes[0] != "NOT_FOUND" || codes[3] != "NOT_FOUND" {
			t.Errorf("%s: nodes errors %v", r, codes)
		}
		leaksNothing(t, string(r)+" nodes", resp)
		for field, id := range map[string]string{"organization": orgID(f.orgB), "user": userID(f.userB), "ticket": ticketID(f.ticketB)} {
			resp := a.raw(`query($id: ID!) { `+field+`(id: $id) { id } }`, map[string]any{"id": id})
			if resp.code(t) != "NOT_FOUND" {
				t.Errorf("%s: %s(B) = %s", r, field, resp.body)
			}
			leaksNothing(t, string(r)+" "+field, resp)
		}
		// Lists and nested fields stay inside organization A.
		deep := a.raw(`{ organizations(first: 5) { edges { node { name users(first: 5) { edges { node { email organization { name }
			tickets(first: 5) { edges { node { title body organization { name } reporter { email organization { users(first: 5) { edges { node { email } } } } } } } } } } } } } } }`, nil)
		if len(deep.Errors) != 0 || !contains(deep.body, "Alpha Open Corp", "ann@alpha.example", "alpha ticket") {
			t.Errorf("%s: own organization tree: %s", r, deep.body)
		}
		leaksNothing(t, string(r)+" organizations tree", deep)
	}
}

// A narrowed list keeps the connection contract: one edge, no next page, an empty page after its
// cursor, and BAD_USER_INPUT for a cursor of another list.
func TestNarrowedListsPage(t *testing.T) {
	f := newTenants(t)
	type conn struct {
		Edges []struct {
			Cursor string
			Node   struct{ Name string }
		}
		PageInfo pageInfo
	}
	var all struct{ Organizations conn }
	f.a.ok(`{ organizations(first: 1) { edges { cursor node { name } } pageInfo { hasNextPage endCursor } } }`, nil, &all)
	for _, c := range []struct {
		role  auth.Role
		field string
		own   string
	}{{auth.RoleOrgMember, "organizations", "Alpha Open Corp"}, {auth.RoleCustomer, "customers", "Dan Open"}} {
		a := f.as(c.role)
		var first map[string]conn
		a.ok(`{ `+c.field+`(first: 1) { edges { cursor node { name } } pageInfo { hasNextPage hasPreviousPage endCursor } } }`, nil, &first)
		p := first[c.field]
		if len(p.Edges) != 1 || p.Edges[0].Node.Name != c.own || p.PageInfo.HasNextPage || p.PageInfo.EndCursor == nil {
			t.Fatalf("%s: %+v", c.field, p)
		}
		var next map[string]conn
		a.ok(`query($after: String) { `+c.field+`(first: 1, after: $after) { edges { node { name } } pageInfo { hasNextPage hasPreviousPage } } }`,
			map[string]any{"after": *p.PageInfo.EndCursor}, &next)
		if n := next[c.field]; len(n.Edges) != 0 || n.PageInfo.HasNextPage || !n.PageInfo.HasPreviousPage {
			t.Fatalf("%s after its cursor: %+v", c.field, n)
		}
		foreign := a.query(`query($after: String) { `+c.field+`(after: $after) { edges { node { name } } } }`, map[string]any{"after": all.Organizations.Edges[0].Cursor})
		if foreign.code(t) != "BAD_USER_INPUT" {
			t.Fatalf("%s with a cursor of the full list: %+v", c.field, foreign.Errors)
		}
		if r := a.query(`{ `+c.field+`(first: 0) { edges { cursor } } }`, nil); r.code(t) != "BAD_USER_INPUT" {
			t.Fatalf("%s first: 0: %+v", c.field, r.Errors)
		}
	}
}

// A customer sees its own record and orders only; hr and sales see no organization.
func TestCustomerAndStaffScopes(t *testing.T) {
	f := newTenants(t)
	c := f.as(auth.RoleCustomer)
	for name, q := range map[string]string{
		"node customer B": `query($id: ID!) { node(id: $id) { ... on Customer { name email mailingAddresses { line1 } } } }`,
		"node order B":    `query($id: ID!) { node(id: $id) { ... on Order { items { sku } customer { name } } } }`,
		"customer B":      `query($id: ID!) { customer(id: $id) { name orders { edges { node { items { sku } } } } } }`,
		"order B":         `query($id: ID!) { order(id: $id) { items { sku } customer { email } } }`,
	} {
		id := customerID(f.custB)
		if name == "node order B" || name == "order B" {
			id = orderID(f.orderB)
		}
		resp := c.raw(q, map[string]any{"id": id})
		if resp.code(t) != "NOT_FOUND" || resp.Extensions.DynamoDB.TotalCalls != 0 {
			t.Errorf("customer: %s = %s", name, resp.body)
		}
		leaksNothing(t, "customer "+name, resp)
	}
	own := c.raw(`query($id: ID!) { customer(id: $id) { name mailingAddresses { line1 } orders { edges { node { items { sku } customer { email } } } } } customers { edges { node { name } } } }`,
		map[string]any{"id": customerID(f.custA)})
	if len(own.Errors) != 0 || !contains(own.body, "Dan Open", "1 Open St", "OPEN-SKU") {
		t.Errorf("customer's own record: %s", own.body)
	}
	leaksNothing(t, "customer's own tree", own)
	for _, r := range []auth.Role{auth.RoleHR, auth.RoleSales, auth.RoleCustomer} {
		resp := f.as(r).raw(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": []string{orgID(f.orgA), userID(f.userA), ticketID(f.ticketA)}})
		if string(resp.Data) != `{"nodes":[null,null,null]}` || len(resp.Errors) != 3 || resp.Extensions.DynamoDB.TotalCalls != 0 {
			t.Errorf("%s reading SaaS: %s", r, resp.body)
		}
	}
}

// Writes naming another tenant's objects are NOT_FOUND and change nothing (read back as admin).
func TestCrossTenantWritesChangeNothing(t *testing.T) {
	f := newTenants(t)
	writes := []struct {
		role auth.Role
		q    string
		in   map[string]any
	}{
		{auth.RoleOrgAdmin, `mutation($in: CreateUserInput!) { createUser(input: $in) { id } }`, map[string]any{"organizationId": orgID(f.orgB), "name": "Mole", "email": "mole@alpha.example"}},
		{auth.RoleOrgAdmin, `mutation($in: CreateTicketInput!) { createTicket(input: $in) { id } }`, map[string]any{"reporterId": userID(f.userB), "title": "planted", "body": "x"}},
		{auth.RoleOrgMember, `mutation($in: CreateTicketInput!) { createTicket(input: $in) { id } }`, map[string]any{"reporterId": userID(f.userB), "title": "planted", "body": "x"}},
		{auth.RoleOrgMember, `mutation($in: UpdateTicketInput!) { updateTicket(input: $in) { id title } }`, map[string]any{"id": ticketID(f.ticketB), "title": "defaced", "status": "CLOSED"}},
		{auth.RoleOrgAdmin, `mutation($in: UpdateTicketInput!) { updateTicket(input: $in) { id title } }`, map[string]any{"id": ticketID(f.ticketB), "title": "defaced"}},
		{auth.RoleCustomer, `mutation($in: AddMailingAddressInput!) { addMailingAddress(input: $in) { id } }`, map[string]any{"customerId": customerID(f.custB), "address": map[string]any{"label": "Mine", "line1": "planted", "city": "X", "country": "US"}}},
		{auth.RoleCustomer, `mutation($in: PlaceOrderInput!) { placeOrder(input: $in) { id } }`, map[string]any{"customerId": customerID(f.custB), "idempotencyKey": "x", "items": []map[string]any{{"sku": "S", "productName": "P", "quantity": 1, "unitPriceCents": 1}}}},
	}
	for _, w := range writes {
		resp := f.as(w.role).raw(w.q, map[string]any{"in": w.in})
		if resp.code(t) != "NOT_FOUND" || string(resp.Data) != "null" {
			t.Errorf("%s: %s → %s", w.role, w.q, resp.body)
		}
		leaksNothing(t, string(w.role)+" write", resp)
	}
	var after struct {
		Org struct {
			Users struct {
				Edges []struct{ Node struct{ Email string } }
			}
		}
		User struct {
			Tickets struct {
				Edges []struct {
					Node struct{ Title, Status string }
				}
			}
		}
		Customer struct {
			MailingAddresses []struct{ Line1 string }
			Orders           struct {
				Edges []struct{ Node struct{ ID string } }
			}
		}
	}
	f.a.ok(`query($o: ID!, $u: ID!, $c: ID!) { org: organization(id: $o) { users { edges { node { email } } } }
		user(id: $u) { tickets { edges { node { title status } } } }
		customer(id: $c) { mailingAddresses { line1 } orders { edges { node { id } } } } }`,
		map[string]any{"o": orgID(f.orgB), "u": userID(f.userB), "c": customerID(f.custB)}, &after)
	if len(after.Org.Users.Edges) != 1 || len(after.User.Tickets.Edges) != 1 || after.User.Tickets.Edges[0].Node.Title != "zebra ticket title" ||
		after.User.Tickets.Edges[0].Node.Status != "OPEN" || len(after.Customer.MailingAddresses) != 1 || len(after.Customer.Orders.Edges) != 1 {
		t.Fatalf("B changed: %+v", after)
	}
}

// Authorization adds no DynamoDB call to reads whose scope follows from IDs: an org-member and a
// customer pay what an admin pays for the same operation.
func TestScopedReadsCostWhatAdminsPay(t *testing.T) {
	f := newTenants(t)
	for _, c := range []struct {
		role auth.Role
		q    string
		vars map[string]any
	}{
		{auth.RoleOrgMember, `query($id: ID!) { organization(id: $id) { name users { edges { node { email tickets { edges { node { title reporter { name } } } } } } } } }`, map[string]any{"id": orgID(f.orgA)}},
		{auth.RoleOrgMember, `query($id: ID!) { user(id: $id) { name tickets { edges { node { title organization { name } } } } } }`, map[string]any{"id": userID(f.userA)}},
		{auth.RoleOrgMember, `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on User { organization { name } } } }`, map[string]any{"ids": []string{userID(f.userA), orgID(f.orgA)}}},
		{auth.RoleCustomer, `query($id: ID!) { customer(id: $id) { name orders { edges { node { totalCents items { sku } } } } } }`, map[string]any{"id": customerID(f.custA)}},
		{auth.RoleCustomer, `query($id: ID!) { order(id: $id) { items { sku } customer { name } } }`, map[string]any{"id": orderID(f.orderA)}},
	} {
		admin := f.a.ok(c.q, c.vars, nil)
		scoped := f.as(c.role).ok(c.q, c.vars, nil)
		if a, s := admin.Extensions.DynamoDB.Calls, scoped.Extensions.DynamoDB.Calls; !sameCalls(a, s) {
			t.Errorf("%s: admin %v, %s %v", c.q, a, c.role, s)
		}
	}
}

func sameCalls(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func contains(body string, want ...string) bool {
	for _, w := range want {
		if !strings.Contains(body, w) {
			return false
		}
	}
	return true
}
