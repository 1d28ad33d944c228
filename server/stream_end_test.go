package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"singletable/changefeed"
	"singletable/repository/store/storetest"
	"singletable/repository/stream"
	"singletable/server"
)

// collectUntilComplete reads the socket's messages of subscription id until its complete (or an
// error message, which ends it too), at most limit of them or for d; it returns the payloads
// that carried errors and whether the subscription was completed.
func (c *wsClient) collectUntilComplete(id string, limit int, d time.Duration) (errs []string, completed bool) {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for n := 0; n < limit && time.Now().Before(deadline); n++ {
		m, err := c.next(time.Until(deadline))
		if err != nil {
			c.t.Fatalf("the socket ended (%v) after errors %v", err, errs)
		}
		if m.ID != id {
			continue
		}
		switch m.Type {
		case "complete":
			return errs, true
		case "error":
			return append(errs, string(m.Payload)), true
		case "next":
			var e event
			_ = json.Unmarshal(m.Payload, &e)
			if len(e.Errors) > 0 {
				errs = append(errs, string(m.Payload))
			}
		}
	}
	return errs, false
}

// A subscription the server ends (here: the table, and its stream, went away) sends its error
// once, then complete, over WebSocket and Server-Sent Events; the socket stays open and answers
// the next subscribe.
func TestAnEndedSubscriptionSendsItsErrorOnceThenCompletes(t *testing.T) {
	a, _ := newLiveAPIWithHubOptions(t, server.Config{}, changefeed.Options{})
	d := a.seedSaaS(1, 0, 0)
	vars := map[string]any{"org": orgID(d.orgs[0])}
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", ticketSubscription, vars)
	sse := a.subscribeSSE(adminToken(t), ticketSubscription, vars)
	time.Sleep(300 * time.Millisecond)
	if err := a.repo.DeleteTable(t.Context()); err != nil {
		t.Fatal(err)
	}
	errs, completed := ws.collectUntilComplete("1", 50, waitFor)
	if len(errs) != 1 || !completed || !strings.Contains(errs[0], `"code":"UNAVAILABLE"`) {
		t.Fatalf("WebSocket: %d error messages (completed %v), want one UNAVAILABLE then complete: %.300v", len(errs), completed, errs)
	}
	raw, _ := json.Marshal(map[string]any{"query": ticketSubscription, "variables": vars})
	ws.send(wsMessage{ID: "2", Type: "subscribe", Payload: raw})
	if errs, completed := ws.collectUntilComplete("2", 50, waitFor); len(errs) != 1 || !completed {
		t.Fatalf("the next subscribe on the same socket: %d errors (completed %v): %.300v", len(errs), completed, errs)
	}
	var sseErrors int
	for range 50 {
		e, ok := sse.next(waitFor)
		if !ok {
			break
		}
		if len(e.Errors) > 0 {
			sseErrors++
		}
	}
	if sseErrors != 1 {
		t.Fatalf("Server-Sent Events: %d events with errors before the stream ended, want 1", sseErrors)
	}
}

// A subscription opened before the instance reads the stream waits for the reader, and is told
// when it does not come (here: a hub that never starts): it never opens to miss the writes made
// meanwhile.
func TestASubscriptionWaitsForTheReader(t *testing.T) {
	repo := storetest.New(t)
	hub := changefeed.New(repo.StreamReader(stream.StreamOptions{}), nil, changefeed.Options{})
	t.Cleanup(hub.Close)
	a := newAPIOn(t, repo, server.Config{Hub: hub})
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", ticketSubscription, map[string]any{"org": "T3JnYW5pemF0aW9uOjAxQVJaM05ERUtUU1Y0UlJGRlE2OUc1RkFW"})
	start := time.Now()
	errs, completed := ws.collectUntilComplete("1", 5, 20*time.Second)
	if len(errs) != 1 || !completed || !strings.Contains(errs[0], "not read yet") || time.Since(start) < 5*time.Second {
		t.Fatalf("a subscription without a reader: %v (completed %v) after %v", errs, completed, time.Since(start))
	}
}
