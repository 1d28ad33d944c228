package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"singletable/auth"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/saas"
	"singletable/server"
)

// waitFor is how long a test waits for an event: the stream is polled every 20 ms, but DynamoDB
// Local and the machine are shared.
const waitFor = 15 * time.Second

const ticketSubscription = `subscription($org: ID!) { ticketChanged(organizationId: $org) { kind previousStatus ticket { title status reporter { name } } } }`

// ticketEvent is ticketChanged's payload.
type ticketEvent struct {
	TicketChanged struct {
		Kind           string
		PreviousStatus *string
		Ticket         struct {
			Title, Status string
			Reporter      struct{ Name string }
		}
	}
}

func decodeTicketEvent(t *testing.T, e event) ticketEvent {
	t.Helper()
	if len(e.Errors) > 0 {
		t.Fatalf("event errors: %+v", e.Errors)
	}
	var v ticketEvent
	if err := json.Unmarshal(e.Data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// A subscriber gets a change written through the API and one written by another writer (the
// repository used directly, as another service would write the table), in the order of the
// ticket's writes; nested fields resolve through the loaders as in a query.
func TestTicketChangesOfEveryWriterAreDelivered(t *testing.T) {
	a := newLiveAPI(t, server.Config{})
	d := a.seedSaaS(1, 1, 0)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", ticketSubscription, map[string]any{"org": orgID(org)})
	time.Sleep(200 * time.Millisecond) // the subscription is open once the server has read it

	var created struct{ CreateTicket struct{ ID string } }
	a.ok(`mutation($u: ID!) { createTicket(input: {reporterId: $u, title: "Through the API", body: "b"}) { id } }`, map[string]any{"u": userID(user)}, &created)
	e, m, ok := ws.nextEvent(waitFor)
	if !ok {
		t.Fatalf("no event for a ticket created through the API: %+v", m)
	}
	got := decodeTicketEvent(t, e).TicketChanged
	if got.Kind != "CREATED" || got.Ticket.Title != "Through the API" || got.Ticket.Reporter.Name != user.Name || got.PreviousStatus != nil {
		t.Fatalf("created: %+v", got)
	}

	// Another writer: the repository, not the server.
	tickets, err := a.repo.TicketsOfUser(t.Context(), org.ID, user.ID, saas.TicketFilter{}, repository.PageArgs{First: 1})
	if err != nil || len(tickets.Items) != 1 {
		t.Fatal(err)
	}
	closed := saas.TicketClosed
	if _, err := a.repo.UpdateTicket(t.Context(), org.ID, tickets.Items[0].ID, saas.TicketPatch{Status: &closed}); err != nil {
		t.Fatal(err)
	}
	e, m, ok = ws.nextEvent(waitFor)
	if !ok {
		t.Fatalf("no event for a ticket changed by another writer: %+v", m)
	}
	got = decodeTicketEvent(t, e).TicketChanged
	if got.Kind != "UPDATED" || got.Ticket.Status != "CLOSED" || got.PreviousStatus == nil || *got.PreviousStatus != "OPEN" {
		t.Fatalf("updated: %+v", got)
	}
}

// Two tenants subscribed at once each get their own organization's changes only; a subscription
// to another tenant's organization is NOT_FOUND, as a query of it is.
func TestSubscriptionsNeverCrossTenants(t *testing.T) {
	a := newLiveAPI(t, server.Config{})
	d := a.seedSaaS(2, 1, 0)
	var socks [2]*wsClient
	for i, org := range d.orgs {
		tok := tokenFor(t, auth.Claims{Subject: "member-" + org.Name, Roles: []string{string(auth.RoleOrgMember)}, Org: orgID(org)})
		socks[i] = a.dialWS(tok)
		socks[i].subscribe("1", ticketSubscription, map[string]any{"org": orgID(org)})
	}
	time.Sleep(200 * time.Millisecond)
	for _, org := range d.orgs {
		for n := range 2 {
			title := org.Name + " ticket " + string(rune('A'+n))
			if _, err := a.repo.CreateTicket(t.Context(), org.ID, d.users[org.ID][0].ID, title, "b"); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, org := range d.orgs {
		for range 2 {
			e, m, ok := socks[i].nextEvent(waitFor)
			if !ok {
				t.Fatalf("%s: missing event: %+v", org.Name, m)
			}
			if title := decodeTicketEvent(t, e).TicketChanged.Ticket.Title; !strings.HasPrefix(title, org.Name+" ") {
				t.Fatalf("%s's subscriber got %q", org.Name, title)
			}
		}
		if e, m, ok := socks[i].nextEvent(time.Second); ok || m.Type != "" {
			t.Fatalf("%s's subscriber got more: %+v %+v", org.Name, e, m)
		}
	}

	other := a.dialWS(tokenFor(t, auth.Claims{Subject: "m", Roles: []string{string(auth.RoleOrgMember)}, Org: orgID(d.orgs[0])}))
	other.subscribe("1", ticketSubscription, map[string]any{"org": orgID(d.orgs[1])})
	if m, err := other.next(waitFor); !refusedWith(m, err, "NOT_FOUND") {
		t.Fatalf("a subscription to another tenant: %s %s %v", m.Type, m.Payload, err)
	}
	forbidden := a.dialWS(tokenFor(t, auth.Claims{Subject: "c", Roles: []string{string(auth.RoleCustomer)}, Customer: customerID(a.seedCommerce(1, 0, 0).customers[0])}))
	forbidden.subscribe("1", ticketSubscription, map[string]any{"org": orgID(d.orgs[0])})
	if m, err := forbidden.next(waitFor); !refusedWith(m, err, "FORBIDDEN") {
		t.Fatalf("a subscription outside the caller's roles: %s %s %v", m.Type, m.Payload, err)
	}
}

// refusedWith reports whether m is a subscription's refusal with code: an error message, or a
// result whose errors carry it and no data (gqlgen answers a resolver's error so, then complete).
func refusedWith(m wsMessage, err error, code string) bool {
	if err != nil || m.Type != "error" && m.Type != "next" {
		return false
	}
	var e event
	if m.Type == "next" && (json.Unmarshal(m.Payload, &e) != nil || string(e.Data) != "null" || len(e.Errors) != 1) {
		return false
	}
	return strings.Contains(string(m.Payload), `"code":"`+code+`"`)
}

// A connection_init without a valid token closes the socket with 4403, before any subscription.
func TestWebSocketWithoutATokenClosesWith4403(t *testing.T) {
	a := newLiveAPI(t, server.Config{})
	for name, token := range map[string]string{"no token": "", "a forged token": "a.b.c"} {
		ws := a.dialWS(token)
		_, err := ws.next(waitFor)
		if code := websocketCloseStatus(err); code != 4403 {
			t.Errorf("%s: closed with %d (%v), want 4403", name, code, err)
		}
	}
}

// Server-Sent Events deliver the same events.
func TestServerSentEventsDeliverTheSameEvents(t *testing.T) {
	a := newLiveAPI(t, server.Config{})
	d := a.seedSaaS(1, 1, 0)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	s := a.subscribeSSE(adminToken(t), ticketSubscription, map[string]any{"org": orgID(org)})
	time.Sleep(200 * time.Millisecond)
	if _, err := a.repo.CreateTicket(t.Context(), org.ID, user.ID, "Over SSE", "b"); err != nil {
		t.Fatal(err)
	}
	e, ok := s.next(waitFor)
	if !ok {
		t.Fatal("no event over Server-Sent Events")
	}
	if got := decodeTicketEvent(t, e).TicketChanged; got.Kind != "CREATED" || got.Ticket.Title != "Over SSE" {
		t.Fatalf("event %+v", got)
	}
}

// A subscription ends with UNAUTHENTICATED when its caller's token expires: the token was checked
// when it opened, and a subscription outlives that check.
func TestAnExpiredTokenEndsTheSubscription(t *testing.T) {
	a := newLiveAPI(t, server.Config{})
	d := a.seedSaaS(1, 1, 0)
	// Valid for about 2 s more: issued so that exp plus the verifier's 60 s leeway is then.
	tok, err := auth.MintHS256(testSecret, adminClaims, auth.MintOptions{Now: time.Now().Add(-62 * time.Second), TTL: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ws := a.dialWS(tok)
	ws.subscribe("1", ticketSubscription, map[string]any{"org": orgID(d.orgs[0])})
	m, err := ws.next(waitFor)
	if err != nil {
		t.Fatal(err)
	}
	if m.Type == "next" {
		var e event
		_ = json.Unmarshal(m.Payload, &e)
		if len(e.Errors) == 0 || e.Errors[0].Extensions["code"] != "UNAUTHENTICATED" {
			t.Fatalf("the last event of an expired subscription: %s", m.Payload)
		}
		m, err = ws.next(waitFor)
	}
	if err != nil || m.Type != "complete" && m.Type != "error" {
		t.Fatalf("after the token expired: %+v %v", m, err)
	}
}

// A customer's orderChanged without customerId is its own orders only, with the status before a
// change; hr's employeeChanged(departmentId) includes an employee transferred out of it.
func TestOrderAndEmployeeChanges(t *testing.T) {
	a := newLiveAPI(t, server.Config{})
	c := a.seedCommerce(2, 0, 0)
	mine, theirs := c.customers[0], c.customers[1]
	ws := a.dialWS(tokenFor(t, auth.Claims{Subject: "cust", Roles: []string{string(auth.RoleCustomer)}, Customer: customerID(mine)}))
	ws.subscribe("1", `subscription { orderChanged { kind previousStatus order { status customer { name } } } }`, nil)
	f := a.hr()
	from, to := f.department("From"), f.department("To")
	mover := f.hire(from, "Mover", hireOpts{})
	hr := a.dialWS(tokenFor(t, auth.Claims{Subject: "hr", Roles: []string{string(auth.RoleHR)}}))
	hr.subscribe("1", `subscription($d: ID!) { employeeChanged(departmentId: $d) { kind employee { name department { name } } } }`, map[string]any{"d": departmentID(from)})
	time.Sleep(200 * time.Millisecond)

	line := []commerce.OrderLine{{SKU: "S", ProductName: "P", Quantity: 1, UnitPriceCents: 100}}
	if _, _, err := a.repo.PlaceOrder(t.Context(), theirs.ID, line, "theirs"); err != nil {
		t.Fatal(err)
	}
	o, _, err := a.repo.PlaceOrder(t.Context(), mine.ID, line, "mine")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.repo.UpdateOrderStatus(t.Context(), mine.ID, o.ID, commerce.OrderShipped); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{"orderChanged":{"kind":"CREATED","previousStatus":null,"order":{"status":"OPEN","customer":{"name":"` + mine.Name + `"}}}}`,
		`{"orderChanged":{"kind":"UPDATED","previousStatus":"OPEN","order":{"status":"SHIPPED","customer":{"name":"` + mine.Name + `"}}}}`} {
		e, m, ok := ws.nextEvent(waitFor)
		if !ok || string(e.Data) != want {
			t.Fatalf("order event %s (%+v), want %s", e.Data, m, want)
		}
	}

	if _, _, err := a.repo.TransferEmployee(t.Context(), mover.ID, to.ID); err != nil {
		t.Fatal(err)
	}
	// The hire may still be on its way when the subscription opens (the stream is read a moment
	// after a write): its CREATED event may come first.
	e, m, ok := hr.nextEvent(waitFor)
	if ok && strings.Contains(string(e.Data), `"kind":"CREATED"`) {
		e, m, ok = hr.nextEvent(waitFor)
	}
	if want := `{"employeeChanged":{"kind":"UPDATED","employee":{"name":"Mover","department":{"name":"To"}}}}`; !ok || string(e.Data) != want {
		t.Fatalf("employee event %s (%+v), want %s", e.Data, m, want)
	}
}

// Closing the hub (what the server does on SIGTERM) completes every open subscription, then
// closes its WebSocket: a client sees the subscription end, and resubscribes elsewhere.
func TestClosingTheHubCompletesSubscriptions(t *testing.T) {
	a, hub := newLiveAPIWithHub(t, server.Config{})
	d := a.seedSaaS(1, 0, 0)
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", ticketSubscription, map[string]any{"org": orgID(d.orgs[0])})
	time.Sleep(200 * time.Millisecond)
	hub.Close()
	var seen []string
	for {
		m, err := ws.next(waitFor)
		if err != nil {
			if code := websocketCloseStatus(err); code == -1 {
				t.Fatalf("the socket ended without a close: %v (seen %v)", err, seen)
			}
			break
		}
		seen = append(seen, m.Type)
	}
	if len(seen) == 0 || seen[len(seen)-1] != "complete" {
		t.Fatalf("messages before the close: %v, want the subscription's complete last", seen)
	}
}
