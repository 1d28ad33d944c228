package server_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"singletable/auth"
	"singletable/repository"
	"singletable/repository/store/storetest"
	"singletable/server"
)

// A client that was away resumes with the cursor of the last change it got: it gets exactly the
// 40 changes made meanwhile, 20 through the API and 20 imported by another writer (a
// BatchWriteItem), in the log's order, each once, then the live ones. A pull of the same range
// gives the same changes with the same cursors.
func TestDeltaSyncResumesAfterFortyChangesByTwoWriters(t *testing.T) {
	a := newDeltaAPI(t)
	d := a.seedSaaS(1, 1, 0)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", ticketFeed, map[string]any{"org": orgID(org)})
	time.Sleep(200 * time.Millisecond)
	a.createTicket(user, "before")
	last := ws.nextChange("ticketChanged")
	if last.Cursor == "" || last.Ticket.Title != "before" {
		t.Fatalf("first event: %+v", last)
	}
	_ = ws.conn.CloseNow() // the client goes away

	for i := range 20 {
		a.createTicket(user, fmt.Sprintf("api %02d", i))
	}
	imported := storetest.Import(t, a.repo.Repo, org.ID, user.ID, 20)

	back := a.dialWS(adminToken(t))
	back.subscribe("1", ticketFeed, map[string]any{"org": orgID(org), "after": last.Cursor})
	var titles, cursors []string
	for range 40 {
		e := back.nextChange("ticketChanged")
		if e.Kind != "CREATED" {
			t.Fatalf("replayed %+v", e)
		}
		titles, cursors = append(titles, e.Ticket.Title), append(cursors, e.Cursor)
	}
	for i := range 20 {
		if want := fmt.Sprintf("api %02d", i); titles[i] != want {
			t.Fatalf("change %d: %q, want %q (all: %v)", i, titles[i], want, titles)
		}
	}
	var wantImported []string
	for _, tk := range imported {
		wantImported = append(wantImported, tk.Title)
	}
	gotImported := slices.Clone(titles[20:])
	slices.Sort(gotImported)
	slices.Sort(wantImported)
	if !slices.Equal(gotImported, wantImported) {
		t.Fatalf("imported changes replayed: %v, want %v", gotImported, wantImported)
	}

	a.createTicket(user, "live")
	if e := back.nextChange("ticketChanged"); e.Ticket.Title != "live" {
		t.Fatalf("after the replay: %+v, want the live change", e)
	}
	if e, m, ok := back.nextEvent(time.Second); ok {
		t.Fatalf("a change delivered twice: %s %+v", e.Data, m)
	}

	samePull(t, a, orgID(org), last.Cursor, titles, cursors)
}

// samePull checks that a pull after cursor gives the changes replayed, with the same cursors.
func samePull(t *testing.T, a *api, org, cursor string, titles, cursors []string) {
	t.Helper()
	var page ticketChangesPage
	a.ok(ticketPull, map[string]any{"org": org, "after": cursor, "first": len(titles)}, &page)
	if len(page.TicketChanges.Edges) != len(titles) || !page.TicketChanges.PageInfo.HasNextPage {
		t.Fatalf("pull: %d edges, hasNextPage %v", len(page.TicketChanges.Edges), page.TicketChanges.PageInfo.HasNextPage)
	}
	for i, e := range page.TicketChanges.Edges {
		if e.Cursor != cursors[i] || e.Node.Cursor != cursors[i] || e.Node.Ticket.Title != titles[i] {
			t.Fatalf("pull edge %d: %s %q, replayed %s %q", i, e.Cursor, e.Node.Ticket.Title, cursors[i], titles[i])
		}
	}
}

// A pull without `after` starts at the oldest change the log keeps, pages with `first`, and
// ends with hasNextPage false; `first` is at most 500.
func TestDeltaSyncPullPagesThroughTheLog(t *testing.T) {
	a := newDeltaAPI(t)
	d := a.seedSaaS(1, 1, 0)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	storetest.Import(t, a.repo.Repo, org.ID, user.ID, 7)
	var seen []string
	var after any
	deadline := time.Now().Add(waitFor)
	for len(seen) < 7 && time.Now().Before(deadline) {
		var page ticketChangesPage
		a.ok(ticketPull, map[string]any{"org": orgID(org), "after": after, "first": 3}, &page)
		for _, e := range page.TicketChanges.Edges {
			seen = append(seen, e.Node.Ticket.Title)
		}
		if end := page.TicketChanges.PageInfo.EndCursor; end != nil {
			after = *end
		}
		if !page.TicketChanges.PageInfo.HasNextPage {
			time.Sleep(100 * time.Millisecond) // the reader appends a moment after the write
		}
	}
	if len(seen) != 7 {
		t.Fatalf("pulled %v", seen)
	}
	if code := a.query(ticketPull, map[string]any{"org": orgID(org), "first": 501}).code(t); code != "BAD_USER_INPUT" {
		t.Fatalf("first: 501 answered %s", code)
	}
}

// A cursor whose change is older than CHANGE_RETENTION is CURSOR_EXPIRED, for a subscription
// and a pull alike; a pull without a cursor no longer returns the change.
func TestDeltaSyncExpiredCursor(t *testing.T) {
	a := newDeltaAPI(t, func(c *repository.Config) { c.ChangeRetention = 2 * time.Second })
	d := a.seedSaaS(1, 1, 0)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", ticketFeed, map[string]any{"org": orgID(org)})
	time.Sleep(200 * time.Millisecond)
	a.createTicket(user, "old")
	old := ws.nextChange("ticketChanged")
	time.Sleep(2500 * time.Millisecond)

	back := a.dialWS(adminToken(t))
	back.subscribe("1", ticketFeed, map[string]any{"org": orgID(org), "after": old.Cursor})
	if m, err := back.next(waitFor); !refusedWith(m, err, "CURSOR_EXPIRED") {
		t.Fatalf("resume from an expired cursor: %s %s %v", m.Type, m.Payload, err)
	}
	if code := a.query(ticketPull, map[string]any{"org": orgID(org), "after": old.Cursor}).code(t); code != "CURSOR_EXPIRED" {
		t.Fatalf("pull after an expired cursor: %s", code)
	}
	var page ticketChangesPage
	a.ok(ticketPull, map[string]any{"org": orgID(org)}, &page)
	if len(page.TicketChanges.Edges) != 0 {
		t.Fatalf("a change past the retention is still pulled: %+v", page.TicketChanges.Edges)
	}
}

// A forged cursor, or one of another scope of the caller's own (another organization, other
// arguments), is BAD_USER_INPUT; another tenant's cursor is NOT_FOUND with the same body as a
// scope of that tenant.
func TestDeltaSyncForeignCursor(t *testing.T) {
	a := newDeltaAPI(t)
	d := a.seedSaaS(2, 1, 0)
	org0, org1 := d.orgs[0], d.orgs[1]
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", ticketFeed, map[string]any{"org": orgID(org0)})
	time.Sleep(200 * time.Millisecond)
	a.createTicket(d.users[org0.ID][0], "zero")
	c0 := ws.nextChange("ticketChanged").Cursor

	forged := c0[:len(c0)-2] + map[bool]string{true: "AA", false: "AB"}[strings.HasSuffix(c0, "AB")]
	for name, vars := range map[string]map[string]any{
		"forged":          {"org": orgID(org0), "after": forged},
		"own other org":   {"org": orgID(org1), "after": c0},
		"other arguments": {"org": orgID(org0), "after": c0, "r": userID(d.users[org0.ID][0])},
	} {
		q := ticketPull
		if vars["r"] != nil {
			q = `subscription($org: ID!, $after: String, $r: ID) { ticketChanged(organizationId: $org, reporterId: $r, after: $after) { cursor } }`
			sub := a.dialWS(adminToken(t))
			sub.subscribe("1", q, vars)
			if m, err := sub.next(waitFor); !refusedWith(m, err, "BAD_USER_INPUT") {
				t.Fatalf("%s: %s %s %v", name, m.Type, m.Payload, err)
			}
			continue
		}
		if code := a.query(q, vars).code(t); code != "BAD_USER_INPUT" {
			t.Fatalf("%s: %s", name, code)
		}
	}

	member := a.as(auth.Claims{Subject: "m1", Roles: []string{string(auth.RoleOrgMember)}, Org: orgID(org1)})
	foreign := member.query(ticketPull, map[string]any{"org": orgID(org1), "after": c0})
	unknown := member.query(ticketPull, map[string]any{"org": orgID(org0)})
	if foreign.code(t) != "NOT_FOUND" || fmt.Sprint(foreign.Errors[0].Message, foreign.Errors[0].Extensions) != fmt.Sprint(unknown.Errors[0].Message, unknown.Errors[0].Extensions) {
		t.Fatalf("another tenant's cursor: %+v, another tenant's scope: %+v", foreign.Errors, unknown.Errors)
	}
	sub := a.dialWS(tokenFor(t, auth.Claims{Subject: "m1", Roles: []string{string(auth.RoleOrgMember)}, Org: orgID(org1)}))
	sub.subscribe("1", ticketFeed, map[string]any{"org": orgID(org1), "after": c0})
	if m, err := sub.next(waitFor); !refusedWith(m, err, "NOT_FOUND") {
		t.Fatalf("a subscription with another tenant's cursor: %s %s %v", m.Type, m.Payload, err)
	}
}

// A ticket removed while the client was away is replayed as REMOVED, showing the ticket as it was.
func TestDeltaSyncReplaysRemoval(t *testing.T) {
	a := newDeltaAPI(t)
	d := a.seedSaaS(1, 1, 0)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", ticketFeed, map[string]any{"org": orgID(org)})
	time.Sleep(200 * time.Millisecond)
	tk, err := a.repo.CreateTicket(t.Context(), org.ID, user.ID, "doomed", "b")
	if err != nil {
		t.Fatal(err)
	}
	last := ws.nextChange("ticketChanged")
	_ = ws.conn.CloseNow()
	a.ok(`mutation($id: ID!) { deleteTicket(input: {id: $id}) { deletedId } }`, map[string]any{"id": ticketID(tk)}, nil)

	back := a.dialWS(adminToken(t))
	back.subscribe("1", ticketFeed, map[string]any{"org": orgID(org), "after": last.Cursor})
	if e := back.nextChange("ticketChanged"); e.Kind != "REMOVED" || e.Ticket.Title != "doomed" {
		t.Fatalf("replayed %+v", e)
	}
}

// An order cancelled while its customer was away is replayed as UPDATED with its previousStatus.
func TestDeltaSyncReplaysOrderCancelWithPreviousStatus(t *testing.T) {
	a := newDeltaAPI(t)
	c := a.seedCommerce(1, 0, 0)
	cu := c.customers[0]
	tok := tokenFor(t, auth.Claims{Subject: "cust", Roles: []string{string(auth.RoleCustomer)}, Customer: customerID(cu)})
	const q = `subscription($after: String) { orderChanged(after: $after) { cursor kind previousStatus order { status } } }`
	ws := a.dialWS(tok)
	ws.subscribe("1", q, nil)
	time.Sleep(200 * time.Millisecond)
	o, _, err := a.repo.PlaceOrder(t.Context(), cu.ID, orderLines(1), "away")
	if err != nil {
		t.Fatal(err)
	}
	last := ws.nextChange("orderChanged")
	_ = ws.conn.CloseNow()
	a.as(auth.Claims{Subject: "cust", Roles: []string{string(auth.RoleCustomer)}, Customer: customerID(cu)}).
		ok(`mutation($id: ID!) { cancelOrder(input: {id: $id}) { status } }`, map[string]any{"id": orderID(o)}, nil)

	back := a.dialWS(tok)
	back.subscribe("1", q, map[string]any{"after": last.Cursor})
	e := back.nextChange("orderChanged")
	if e.Kind != "UPDATED" || e.Order.Status != "CANCELLED" || e.PreviousStatus == nil || *e.PreviousStatus != "OPEN" {
		t.Fatalf("replayed %+v", e)
	}
}

// Explain shows the change log (AP33) in the plan of a pull and of a subscription's replay.
func TestDeltaSyncExplainShowsTheLog(t *testing.T) {
	a := newAPI(t, server.Config{})
	d := a.seedSaaS(1, 0, 0)
	for _, q := range []string{
		`query($org: ID!) { ticketChanges(organizationId: $org, first: 500) { edges { cursor node { kind ticket { title } } } } }`,
		`subscription($org: ID!) { ticketChanged(organizationId: $org, after: "x") { cursor ticket { title } } }`,
	} {
		e := a.explain(q, map[string]any{"org": orgID(d.orgs[0])})
		if e.plan == nil || e.calls != 0 {
			t.Fatalf("%s: no plan (%+v), %d calls", q, e.errors, e.calls)
		}
		found := false
		for _, s := range e.plan.Steps {
			found = found || s.AccessPattern != nil && *s.AccessPattern == "AP33" && s.Operation == "Query"
		}
		if !found {
			t.Fatalf("%s: the plan lacks the change log's Query:\n%s", q, planText(e.plan))
		}
	}
}
