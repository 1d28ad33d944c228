package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"singletable/changefeed"
	"singletable/repository"
	"singletable/repository/saas"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
	"singletable/repository/stream"
	"singletable/server"
)

// newDeltaAPI is newLiveAPI over a repository configured by modify (a change retention of
// seconds, say).
func newDeltaAPI(t *testing.T, modify ...func(*repository.Config)) *api {
	t.Helper()
	return newDeltaAPIOn(t, storetest.New(t, modify...))
}

// newDeltaAPIOn is newDeltaAPI on an existing table: another instance.
func newDeltaAPIOn(t *testing.T, repo *store.Store) *api {
	t.Helper()
	reader := repo.StreamReader(stream.StreamOptions{PollInterval: 20 * time.Millisecond, DescribeInterval: 200 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	return newAPIOn(t, repo, server.Config{Hub: startHub(t, reader, changefeed.Options{})})
}

// startHub starts a hub on src, closed when the test ends, once it found the table's stream.
func startHub(t *testing.T, src changefeed.Source, opts changefeed.Options) *changefeed.Hub {
	t.Helper()
	hub := changefeed.New(src, nil, opts)
	hub.Start(context.Background())
	t.Cleanup(hub.Close)
	select {
	case <-hub.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("the hub did not find the table's stream")
	}
	return hub
}

const ticketFeed = `subscription($org: ID!, $after: String) { ticketChanged(organizationId: $org, after: $after) { cursor kind previousStatus ticket { title status } } }`

// deltaEvent is a change event of any of the fields, as the tests select it.
type deltaEvent struct {
	Cursor         string
	Kind           string
	PreviousStatus *string
	Ticket         *struct{ Title, Status string }
	Order          *struct{ Status string }
}

// nextChange waits for the next event of a subscription to field and decodes it.
func (c *wsClient) nextChange(field string) deltaEvent {
	c.t.Helper()
	e, m, ok := c.nextEvent(waitFor)
	if !ok {
		c.t.Fatalf("no event: %s %s", m.Type, m.Payload)
	}
	if len(e.Errors) > 0 {
		c.t.Fatalf("event errors: %+v", e.Errors)
	}
	var v map[string]deltaEvent
	if err := json.Unmarshal(e.Data, &v); err != nil {
		c.t.Fatal(err)
	}
	return v[field]
}

// createTicket creates a ticket through the API.
func (a *api) createTicket(reporter *saas.User, title string) {
	a.t.Helper()
	a.ok(`mutation($u: ID!, $t: String!) { createTicket(input: {reporterId: $u, title: $t, body: "b"}) { id } }`,
		map[string]any{"u": userID(reporter), "t": title}, nil)
}

// ticketChangesPage pulls one page of an organization's ticket changes.
type ticketChangesPage struct {
	TicketChanges struct {
		Edges []struct {
			Cursor string
			Node   deltaEvent
		}
		PageInfo struct {
			HasNextPage bool
			EndCursor   *string
		}
	}
}

const ticketPull = `query($org: ID!, $after: String, $first: Int) { ticketChanges(organizationId: $org, after: $after, first: $first) {
  edges { cursor node { cursor kind ticket { title } } } pageInfo { hasNextPage endCursor } } }`
