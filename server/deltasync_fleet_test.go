package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"singletable/changefeed"
	"singletable/fleet"
	"singletable/fleet/fleettest"
	"singletable/repository/repotest"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
	"singletable/repository/stream"
	"singletable/server"
)

// fleetInstance is a server of a fleet: a Repo of its own on the shared table (the same
// CURSOR_SECRET), its hub fed by the fleet's Redis; closer, once set, makes its reader find the
// stream's shard closed.
type fleetInstance struct {
	api    *api
	hub    *changefeed.Hub
	feed   *fleet.Feed
	closer *repotest.ShardCloser
}

func newFleetInstance(t *testing.T, url, prefix, name, table string) *fleetInstance {
	t.Helper()
	f, err := fleet.Open(url, fleet.Options{Prefix: prefix, Instance: name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	closer := &repotest.ShardCloser{}
	cfg := repotest.Config(t, table)
	cfg.WrapTransport = closer.Wrap
	repo, err := store.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	feed := f.Feed(repo, stream.StreamOptions{PollInterval: 20 * time.Millisecond, DescribeInterval: 200 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	hub := changefeed.New(feed, nil, changefeed.Options{})
	hub.Start(context.Background())
	t.Cleanup(hub.Close)
	return &fleetInstance{api: newAPIOn(t, repo, server.Config{Hub: hub}), hub: hub, feed: feed, closer: closer}
}

func (in *fleetInstance) ready(t *testing.T) {
	t.Helper()
	select {
	case <-in.hub.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("the instance's hub did not get ready")
	}
}

// A client that was away resumes on another instance of the fleet with the cursor the first gave
// it, across a handover of the stream's reader: the lease holder dies (its lease left to expire,
// as after a crash) while the client is away and changes are written through the API and by
// another writer, and the stream's shard closes meanwhile (as shards roll over every few hours:
// the instance that takes over finds it closed). The client gets exactly those changes, in
// order, each once, then the live ones.
func TestDeltaSyncResumesAcrossFleetInstancesAndAReaderHandover(t *testing.T) {
	base := storetest.New(t)
	url, prefix := fleettest.URL(t), fmt.Sprintf("test-%s-%d:", t.Name(), time.Now().UnixNano())
	fleetOf := []*fleetInstance{newFleetInstance(t, url, prefix, "a", base.Table()), newFleetInstance(t, url, prefix, "b", base.Table())}
	for _, in := range fleetOf {
		in.ready(t)
	}
	leader, other := fleetOf[0], fleetOf[1]
	if !leader.feed.Leading() {
		leader, other = other, leader
	}
	d := other.api.seedSaaS(1, 1, 0)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]

	ws := leader.api.dialWS(adminToken(t))
	ws.subscribe("1", ticketFeed, map[string]any{"org": orgID(org)})
	time.Sleep(200 * time.Millisecond)
	other.api.createTicket(user, "before")
	last := ws.nextChange("ticketChanged")
	_ = ws.conn.CloseNow()

	var want []string
	for i := range 3 {
		want = append(want, fmt.Sprintf("api %d", i))
		other.api.createTicket(user, want[i])
	}
	other.closer.Set(true)
	leader.hub.Close() // the lease holder dies; its lease expires
	for i := range 3 {
		title := fmt.Sprintf("direct %d", i)
		if _, err := base.CreateTicket(t.Context(), org.ID, user.ID, title, "b"); err != nil {
			t.Fatal(err)
		}
		want = append(want, title)
	}

	back := other.api.dialWS(adminToken(t))
	back.subscribe("1", ticketFeed, map[string]any{"org": orgID(org), "after": last.Cursor})
	var got []string
	for range want {
		got = append(got, back.nextChange("ticketChanged").Ticket.Title)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("resumed with %v, want %v", got, want)
	}
	other.api.createTicket(user, "live")
	if e := back.nextChange("ticketChanged"); e.Ticket.Title != "live" {
		t.Fatalf("after the replay: %+v", e)
	}
	if e, m, ok := back.nextEvent(time.Second); ok {
		t.Fatalf("a change delivered twice: %s %+v", e.Data, m)
	}
}

// A subscription a deploy's drain ends tells the client where to resume (extensions.cursor,
// reason "drain"): resubscribing there, on the instance that replaced it (started before the old
// one drained, as a rolling deploy does; both read the stream meanwhile and append the same
// changes, once), replays what was written since.
func TestDeltaSyncDrainGivesTheResumeCursor(t *testing.T) {
	repo := storetest.New(t)
	reader := repo.StreamReader(stream.StreamOptions{PollInterval: 20 * time.Millisecond})
	hub := startHub(t, reader, changefeed.Options{})
	a := newAPIOn(t, repo, server.Config{Hub: hub})
	d := a.seedSaaS(1, 1, 0)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", ticketFeed, map[string]any{"org": orgID(org)})
	time.Sleep(200 * time.Millisecond)
	a.createTicket(user, "before")
	last := ws.nextChange("ticketChanged")

	next := newDeltaAPIOn(t, repo)
	hub.Close()
	m, err := ws.next(waitFor)
	var e event
	if err != nil || m.Type != "next" || json.Unmarshal(m.Payload, &e) != nil || len(e.Errors) != 1 {
		t.Fatalf("drain: %s %s %v", m.Type, m.Payload, err)
	}
	if ext := e.Errors[0].Extensions; ext["reason"] != "drain" || ext["cursor"] != last.Cursor {
		t.Fatalf("drain's error: %+v, want reason drain and cursor %s", ext, last.Cursor)
	}

	next.createTicket(user, "while away")
	back := next.dialWS(adminToken(t))
	back.subscribe("1", ticketFeed, map[string]any{"org": orgID(org), "after": last.Cursor})
	if e := back.nextChange("ticketChanged"); e.Ticket.Title != "while away" {
		t.Fatalf("resumed with %+v", e)
	}
}

// The only instance restarts (no reader runs for a while): the new one reads the stream on from
// the change log's checkpoints, so what was written meanwhile is in the log, and a client that
// resumes from a cursor of the old instance gets it.
func TestDeltaSyncResumesAcrossARestartOfTheOnlyInstance(t *testing.T) {
	repo := storetest.New(t)
	reader := repo.StreamReader(stream.StreamOptions{PollInterval: 20 * time.Millisecond})
	hub := changefeed.New(reader, nil, changefeed.Options{})
	hub.Start(context.Background())
	<-hub.Ready()
	a := newAPIOn(t, repo, server.Config{Hub: hub})
	d := a.seedSaaS(1, 1, 0)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", ticketFeed, map[string]any{"org": orgID(org)})
	time.Sleep(200 * time.Millisecond)
	a.createTicket(user, "before")
	last := ws.nextChange("ticketChanged")
	hub.Close()

	if _, err := repo.CreateTicket(t.Context(), org.ID, user.ID, "while down", "b"); err != nil {
		t.Fatal(err)
	}
	next := newDeltaAPIOn(t, repo)
	back := next.dialWS(adminToken(t))
	back.subscribe("1", ticketFeed, map[string]any{"org": orgID(org), "after": last.Cursor})
	if e := back.nextChange("ticketChanged"); e.Ticket.Title != "while down" {
		t.Fatalf("resumed with %+v", e)
	}
}
