package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"singletable/changefeed"
	"singletable/repository/repotest"
	"singletable/repository/saas"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
	"singletable/repository/stream"
	"singletable/server"
)

// gapSource is the table's stream reader, whose news the test can add to: the changes it stops
// handing on (dropping: read and appended to the log, never dispatched, as changes a reader could
// not read), and a gap.
type gapSource struct {
	src      changefeed.Source
	dropping atomic.Bool
	h        atomic.Pointer[stream.StreamHandler]
}

func (g *gapSource) Run(ctx context.Context, h stream.StreamHandler) error {
	g.h.Store(&h)
	changes := h.Changes
	h.Changes = func(ctx context.Context, batch []stream.Change) {
		if !g.dropping.Load() {
			changes(ctx, batch)
		}
	}
	return g.src.Run(ctx, h)
}

// endsWith waits for the subscription's error event and returns its extensions, and the titles
// of the change events that came before it.
func (c *wsClient) endsWith(field string) (titles []string, ext map[string]any) {
	c.t.Helper()
	for {
		m, err := c.next(waitFor)
		if err != nil || m.Type != "next" {
			c.t.Fatalf("before the end: %s %s %v", m.Type, m.Payload, err)
		}
		var e event
		if err := json.Unmarshal(m.Payload, &e); err != nil {
			c.t.Fatal(err)
		}
		if len(e.Errors) > 0 {
			return titles, e.Errors[0].Extensions
		}
		var v map[string]deltaEvent
		if err := json.Unmarshal(e.Data, &v); err != nil {
			c.t.Fatal(err)
		}
		titles = append(titles, v[field].Ticket.Title)
	}
}

// resumed subscribes again after cursor and returns the titles of the next n events.
func (a *api) resumed(org *saas.Organization, query, cursor string, n int) []string {
	a.t.Helper()
	ws := a.dialWS(adminToken(a.t))
	ws.subscribe("1", query, map[string]any{"org": orgID(org), "after": cursor})
	var titles []string
	for range n {
		titles = append(titles, ws.nextChange("ticketChanged").Ticket.Title)
	}
	if e, m, ok := ws.nextEvent(time.Second); ok {
		ws.t.Fatalf("more than the changes missed: %s %+v", e.Data, m)
	}
	return titles
}

// A subscription that ends with reason "gap" (changes the reader could not hand on) tells the
// client the cursor of the last change it delivered (extensions.cursor); resubscribing after it
// replays exactly the changes the subscription missed, which the change log has: no refetch.
func TestDeltaSyncGapEndGivesTheResumeCursor(t *testing.T) {
	repo := storetest.New(t)
	src := &gapSource{src: repo.StreamReader(stream.StreamOptions{PollInterval: 20 * time.Millisecond})}
	a := newAPIOn(t, repo, server.Config{Hub: startHub(t, src, changefeed.Options{})})
	d := a.seedSaaS(1, 1, 0)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", ticketFeed, map[string]any{"org": orgID(org)})
	time.Sleep(200 * time.Millisecond)
	a.createTicket(user, "before")
	last := ws.nextChange("ticketChanged")

	src.dropping.Store(true)
	var missed []string
	for i := range 3 {
		missed = append(missed, fmt.Sprintf("missed %d", i))
		a.createTicket(user, missed[i])
	}
	repotest.WaitFor(t, "the missed changes in the log", func() bool {
		r := a.ok(ticketPull, map[string]any{"org": orgID(org), "after": last.Cursor}, nil)
		var page ticketChangesPage
		_ = json.Unmarshal(r.Data, &page)
		return len(page.TicketChanges.Edges) == len(missed)
	})
	(*src.h.Load()).Gap("test", "records were trimmed")
	src.dropping.Store(false)
	if titles, ext := ws.endsWith("ticketChanged"); len(titles) != 0 || ext["reason"] != "gap" || ext["cursor"] != last.Cursor {
		t.Fatalf("the gap's end: events %v, extensions %+v; want reason gap and cursor %s", titles, ext, last.Cursor)
	}
	if got := a.resumed(org, ticketFeed, last.Cursor, len(missed)); !slices.Equal(got, missed) {
		t.Fatalf("resumed with %v, want %v", got, missed)
	}
}

// A subscription that ends with reason "slow" (its client took no change for SlowAfter while its
// buffer was full: here, each event's nested read takes 300 ms) tells the client the cursor of
// the last change it delivered; resubscribing after it replays every change it did not get,
// each once.
func TestDeltaSyncSlowEndGivesTheResumeCursor(t *testing.T) {
	base := storetest.New(t)
	hub := startHub(t, base.StreamReader(stream.StreamOptions{PollInterval: 20 * time.Millisecond}),
		changefeed.Options{Buffer: 1, SlowAfter: 100 * time.Millisecond})
	cfg := repotest.Config(t, base.Table())
	cfg.WrapTransport = repotest.Latency(300*time.Millisecond, 0)
	slow, err := store.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := newAPIOn(t, slow, server.Config{Hub: hub})
	org, err := base.CreateOrganization(t.Context(), "Org")
	if err != nil {
		t.Fatal(err)
	}
	user, err := base.CreateUser(t.Context(), org.ID, "User", "user@example.com")
	if err != nil {
		t.Fatal(err)
	}
	const feed = `subscription($org: ID!, $after: String) { ticketChanged(organizationId: $org, after: $after) { cursor kind ticket { title reporter { name } } } }`
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", feed, map[string]any{"org": orgID(org)})
	repotest.WaitFor(t, "the subscription to open", func() bool { return hub.Subscriptions() == 1 })
	var written []string
	for i := range 8 {
		written = append(written, fmt.Sprintf("burst %d", i))
		if _, err := base.CreateTicket(t.Context(), org.ID, user.ID, written[i], "b"); err != nil {
			t.Fatal(err)
		}
	}
	got, ext := ws.endsWith("ticketChanged")
	cursor, _ := ext["cursor"].(string)
	if ext["reason"] != "slow" || len(got) == 0 || len(got) == len(written) || cursor == "" {
		t.Fatalf("the slow end: events %v, extensions %+v; want reason slow, a cursor, and some of the changes", got, ext)
	}
	got = append(got, a.resumed(org, feed, cursor, len(written)-len(got))...)
	if !slices.Equal(got, written) {
		t.Fatalf("before the end and resumed: %v, want %v", got, written)
	}
}

// A subscription without `after` that ends before it delivered anything (here, on an instance
// whose hub has dispatched nothing yet: the reader hands nothing on) still tells the client where
// to resume: where it started, the log's head when it subscribed. Resubscribing there replays
// exactly what it missed: not the change logged before it subscribed, every one after. For a gap,
// and for a drain (resumed on another instance).
func TestDeltaSyncEndBeforeAnyEventGivesTheStartAsResumeCursor(t *testing.T) {
	for _, reason := range []string{"gap", "drain"} {
		t.Run(reason, func(t *testing.T) {
			repo := storetest.New(t)
			src := &gapSource{src: repo.StreamReader(stream.StreamOptions{PollInterval: 20 * time.Millisecond})}
			src.dropping.Store(true)
			hub := startHub(t, src, changefeed.Options{})
			a := newAPIOn(t, repo, server.Config{Hub: hub})
			d := a.seedSaaS(1, 1, 0)
			org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
			a.createTicket(user, "before")
			logged := func(n int) func() bool {
				return func() bool {
					var page ticketChangesPage
					a.ok(ticketPull, map[string]any{"org": orgID(org)}, &page)
					return len(page.TicketChanges.Edges) == n
				}
			}
			repotest.WaitFor(t, "the change before in the log", logged(1))

			ws := a.dialWS(adminToken(t))
			ws.subscribe("1", ticketFeed, map[string]any{"org": orgID(org)})
			repotest.WaitFor(t, "the subscription to open", func() bool { return hub.Subscriptions() == 1 })
			missed := []string{"missed 0", "missed 1", "missed 2"}
			for _, title := range missed {
				a.createTicket(user, title)
			}
			repotest.WaitFor(t, "the missed changes in the log", logged(1+len(missed)))
			resumeOn := a
			if reason == "gap" {
				(*src.h.Load()).Gap("test", "records were trimmed")
			} else {
				resumeOn = newDeltaAPIOn(t, repo)
				hub.Close()
			}
			titles, ext := ws.endsWith("ticketChanged")
			cursor, _ := ext["cursor"].(string)
			if len(titles) != 0 || ext["reason"] != reason || cursor == "" {
				t.Fatalf("the end: events %v, extensions %+v; want reason %s and a cursor", titles, ext, reason)
			}
			if got := resumeOn.resumed(org, ticketFeed, cursor, len(missed)); !slices.Equal(got, missed) {
				t.Fatalf("resumed with %v, want %v", got, missed)
			}
		})
	}
}
