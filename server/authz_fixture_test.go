package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"singletable/auth"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
	"singletable/server"
)

// tenants is two organizations (A and B) and two customers (A and B) with what hangs from them,
// and some HR data. B's objects carry marker strings that must never appear in a response to a
// principal of A.
type tenants struct {
	a                *api
	orgA, orgB       *saas.Organization
	userA, userB     *saas.User
	ticketA, ticketB *saas.Ticket
	custA, custB     *commerce.Customer
	orderA, orderB   *commerce.Order
	// statusOrders are orders of customer A, one per role, for updateOrderStatus.
	statusOrders map[auth.Role]*commerce.Order
	// cancelOrders are orders of customer A, one per role, for cancelOrder.
	cancelOrders map[auth.Role]*commerce.Order
	product      *catalog.Product
	warehouse    *catalog.Warehouse
	loc          *hr.Location
	dept         *hr.Department
	emp1, emp2   *hr.Employee
}

// secretsOfB are strings only B's objects hold.
var secretsOfB = []string{"Zebra Secret Corp", "Bob Zebra", "bob@zebra.example", "zebra ticket title", "zebra ticket body",
	"Carol Hidden", "carol@hidden.example", "7 Hidden Lane", "HIDDEN-SKU"}

func newTenants(t *testing.T) *tenants {
	t.Helper()
	a := newAPI(t, server.Config{})
	ctx := context.Background()
	f := &tenants{a: a, statusOrders: map[auth.Role]*commerce.Order{}, cancelOrders: map[auth.Role]*commerce.Order{}}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var err error
	f.orgA, err = a.repo.CreateOrganization(ctx, "Alpha Open Corp")
	must(err)
	f.orgB, err = a.repo.CreateOrganization(ctx, "Zebra Secret Corp")
	must(err)
	f.userA, err = a.repo.CreateUser(ctx, f.orgA.ID, "Ann Alpha", "ann@alpha.example")
	must(err)
	f.userB, err = a.repo.CreateUser(ctx, f.orgB.ID, "Bob Zebra", "bob@zebra.example")
	must(err)
	f.ticketA, err = a.repo.CreateTicket(ctx, f.orgA.ID, f.userA.ID, "alpha ticket", "alpha body")
	must(err)
	f.ticketB, err = a.repo.CreateTicket(ctx, f.orgB.ID, f.userB.ID, "zebra ticket title", "zebra ticket body")
	must(err)
	f.custA, err = a.repo.CreateCustomer(ctx, "Dan Open", "dan@open.example", []commerce.MailingAddress{{Label: "Home", Line1: "1 Open St", City: "Springfield", Country: "US"}})
	must(err)
	f.custB, err = a.repo.CreateCustomer(ctx, "Carol Hidden", "carol@hidden.example", []commerce.MailingAddress{{Label: "Home", Line1: "7 Hidden Lane", City: "Shelbyville", Country: "US"}})
	must(err)
	f.orderA, _, err = a.repo.PlaceOrder(ctx, f.custA.ID, []commerce.OrderLine{{SKU: "OPEN-SKU", ProductName: "Open product", Quantity: 1, UnitPriceCents: 100}}, "a-1")
	must(err)
	f.orderB, _, err = a.repo.PlaceOrder(ctx, f.custB.ID, []commerce.OrderLine{{SKU: "HIDDEN-SKU", ProductName: "Hidden product", Quantity: 2, UnitPriceCents: 900}}, "b-1")
	must(err)
	for _, r := range auth.Roles {
		f.statusOrders[r], _, err = a.repo.PlaceOrder(ctx, f.custA.ID, orderLines(1), "status-"+string(r))
		must(err)
		f.cancelOrders[r], _, err = a.repo.PlaceOrder(ctx, f.custA.ID, orderLines(1), "cancel-"+string(r))
		must(err)
	}
	f.product, err = a.repo.CreateProduct(ctx, "Open widget", "OPEN-W")
	must(err)
	f.warehouse, err = a.repo.CreateWarehouse(ctx, "Open depot", "north")
	must(err)
	h := a.hr()
	f.loc, f.dept = h.loc, h.department("Research")
	f.emp1 = h.hire(f.dept, "Eve Engineer", hireOpts{})
	f.emp2 = h.hire(f.dept, "Max Manager", hireOpts{})
	return f
}

// claims is the principal of role: the org roles in organization A, the customer A.
func (f *tenants) claims(r auth.Role) auth.Claims {
	c := auth.Claims{Subject: "test-" + string(r), Roles: []string{string(r)}}
	switch r {
	case auth.RoleOrgAdmin, auth.RoleOrgMember:
		c.Org = orgID(f.orgA)
	case auth.RoleCustomer:
		c.Customer = customerID(f.custA)
	}
	return c
}

// as is the API called by role's principal.
func (f *tenants) as(r auth.Role) *api { return f.a.as(f.claims(r)) }

// rawResponse is a response with its status, headers and body as sent.
type rawResponse struct {
	gqlResponse
	header http.Header
	body   string
}

// raw POSTs an operation with a's token and keeps the body as sent.
func (a *api) raw(query string, vars map[string]any) rawResponse {
	a.t.Helper()
	header := ""
	if a.token != "" {
		header = "Bearer " + a.token
	}
	return a.rawWith(header, query, vars)
}

// rawWith is raw with the Authorization header given ("" for none).
func (a *api) rawWith(authorization, query string, vars map[string]any) rawResponse {
	a.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, a.url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := rawResponse{header: resp.Header, body: string(b)}
	if err := json.Unmarshal(b, &out.gqlResponse); err != nil {
		a.t.Fatalf("not JSON (%d): %s", resp.StatusCode, b)
	}
	out.status = resp.StatusCode
	return out
}

// leaksNothing fails if the response holds any of B's strings.
func leaksNothing(t *testing.T, what string, r rawResponse) {
	t.Helper()
	for _, s := range secretsOfB {
		if strings.Contains(r.body, s) {
			t.Errorf("%s leaks %q: %s", what, s, r.body)
		}
	}
}

// codes lists the extensions.code of every error.
func (r gqlResponse) codes() []string {
	out := make([]string, len(r.Errors))
	for i, e := range r.Errors {
		out[i], _ = e.Extensions["code"].(string)
	}
	return out
}
