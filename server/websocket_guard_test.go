package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"singletable/auth"
	"singletable/repository/repotest"
	"singletable/server"
)

// openDescriptors is the number of files this process holds open (the test's clients and the
// server under test alike).
func openDescriptors(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd on this system")
	}
	return len(entries)
}

// dialRaw opens a WebSocket offering protocols, without sending anything.
func (a *api) dialRaw(protocols ...string) (*websocket.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(a.url, "http")+"/query", &websocket.DialOptions{Subprotocols: protocols})
	if err != nil && resp != nil {
		return nil, fmt.Errorf("%w (HTTP %d)", err, resp.StatusCode)
	}
	return conn, err
}

// Sockets whose connection_init payload is not an object are closed with 4400, and sockets that
// never send one are bounded per client address: once every client has gone, the process holds
// as many descriptors as before.
func TestWebSocketsAreClosedWhateverTheirConnectionInitHolds(t *testing.T) {
	a := newLiveAPI(t, server.Config{})
	warm := a.dialWS(adminToken(t))
	_, _ = warm.next(waitFor)
	_ = warm.conn.Close(websocket.StatusNormalClosure, "")
	time.Sleep(200 * time.Millisecond)
	baseline := openDescriptors(t)

	var wg sync.WaitGroup
	codes := make([]int, 60)
	slots := make(chan struct{}, 8) // within the bound of sockets waiting for their connection_init
	for i := range codes {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			conn, err := a.dialRaw("graphql-transport-ws")
			if err != nil {
				codes[i] = -2
				return
			}
			defer conn.CloseNow()
			payload := []string{`"x"`, `[1,2]`, `42`}[i%3]
			_ = conn.Write(context.Background(), websocket.MessageText, []byte(`{"type":"connection_init","payload":`+payload+`}`))
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			_, _, err = conn.Read(ctx)
			codes[i] = websocketCloseStatus(err)
		})
	}
	wg.Wait()
	for i, c := range codes {
		if c != 4400 {
			t.Fatalf("socket %d with a connection_init payload that is not an object: closed with %d, want 4400", i, c)
		}
	}

	var idle []*websocket.Conn
	refused := 0
	for range 24 {
		conn, err := a.dialRaw("graphql-transport-ws")
		if err != nil {
			if !strings.Contains(err.Error(), "HTTP 429") {
				t.Fatalf("a socket past the bound: %v, want HTTP 429", err)
			}
			refused++
			continue
		}
		idle = append(idle, conn)
	}
	if len(idle) != 16 || refused != 8 {
		t.Fatalf("%d sockets without connection_init accepted, %d refused; want 16 and 8", len(idle), refused)
	}
	for _, c := range idle {
		_ = c.CloseNow()
	}
	repotest.WaitFor(t, "the descriptors to return to the baseline", func() bool { return openDescriptors(t) <= baseline+2 })
}

// A client offering both protocols gets graphql-transport-ws, never the legacy graphql-ws.
func TestWebSocketSpeaksOnlyGraphQLTransportWS(t *testing.T) {
	a := newLiveAPI(t, server.Config{})
	conn, err := a.dialRaw("graphql-ws", "graphql-transport-ws")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	if got := conn.Subprotocol(); got != "graphql-transport-ws" {
		t.Fatalf("negotiated %q, want graphql-transport-ws", got)
	}
}

// A subscribe whose id is active closes the socket with 4409: two subscriptions under one id
// would leave one the client cannot stop.
func TestASubscribeIDAlreadyActiveClosesTheSocketWith4409(t *testing.T) {
	a := newLiveAPI(t, server.Config{})
	d := a.seedSaaS(1, 0, 0)
	ws := a.dialWS(adminToken(t))
	vars := map[string]any{"org": orgID(d.orgs[0])}
	ws.subscribe("1", ticketSubscription, vars)
	raw, _ := json.Marshal(map[string]any{"query": ticketSubscription, "variables": vars})
	ws.send(wsMessage{ID: "1", Type: "subscribe", Payload: raw})
	for {
		_, err := ws.next(waitFor)
		if err != nil {
			if code := websocketCloseStatus(err); code != 4409 {
				t.Fatalf("closed with %d (%v), want 4409", code, err)
			}
			return
		}
	}
}

// When the token expires, the subscription ends with UNAUTHENTICATED and then the socket closes
// with 4403: it no longer answers anything.
func TestAnExpiredTokenClosesTheSocket(t *testing.T) {
	a := newLiveAPI(t, server.Config{})
	d := a.seedSaaS(1, 0, 0)
	tok, err := auth.MintHS256(testSecret, adminClaims, auth.MintOptions{Now: time.Now().Add(-62 * time.Second), TTL: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ws := a.dialWS(tok)
	ws.subscribe("1", ticketSubscription, map[string]any{"org": orgID(d.orgs[0])})
	var seen []string
	for {
		m, err := ws.next(waitFor)
		if err != nil {
			if code := websocketCloseStatus(err); code != 4403 {
				t.Fatalf("closed with %d (%v) after %v, want 4403", code, err, seen)
			}
			break
		}
		seen = append(seen, m.Type+":"+string(m.Payload))
	}
	if len(seen) == 0 || !strings.Contains(strings.Join(seen, " "), "UNAUTHENTICATED") {
		t.Fatalf("messages before the close: %v, want the subscription's UNAUTHENTICATED", seen)
	}
}

// Every subscribe takes a token from its principal's request bucket, the one its HTTP requests
// take; and a socket answers nothing but subscriptions: no query, introspection or explain.
func TestSubscribeMessagesAreRateLimitedAndOnlySubscriptionsAreServed(t *testing.T) {
	a := newLiveAPI(t, server.Config{RateLimitRPS: 0.5, RateLimitBurst: 4, Introspection: true})
	d := a.seedSaaS(1, 0, 0)
	ws := a.dialWS(adminToken(t))
	if m, err := ws.next(waitFor); err != nil || m.Type != "connection_ack" {
		t.Fatalf("connection_init: %+v %v", m, err)
	}
	send := func(id string, body map[string]any) {
		raw, _ := json.Marshal(body)
		ws.send(wsMessage{ID: id, Type: "subscribe", Payload: raw})
	}
	send("introspection", map[string]any{"query": `{ __schema { queryType { name } } }`})
	send("explain", map[string]any{"query": ticketSubscription, "variables": map[string]any{"org": orgID(d.orgs[0])}, "extensions": map[string]any{"explain": true}})
	limited := 0
	for i := range 6 {
		send(fmt.Sprint("s", i), map[string]any{"query": `{ __typename }`})
	}
	deadline := time.Now().Add(waitFor)
	answers := map[string]string{}
	for len(answers) < 8 && time.Now().Before(deadline) {
		m, err := ws.next(time.Until(deadline))
		if err != nil {
			t.Fatalf("socket ended: %v (answers %v)", err, answers)
		}
		if m.Type == "complete" {
			continue
		}
		answers[m.ID] = string(m.Payload)
		if strings.Contains(string(m.Payload), "RATE_LIMITED") {
			limited++
		}
	}
	for _, id := range []string{"introspection", "explain"} {
		if !strings.Contains(answers[id], "BAD_USER_INPUT") || strings.Contains(answers[id], "queryType") || strings.Contains(answers[id], `"plan"`) {
			t.Errorf("%s over the socket answered %s, want a BAD_USER_INPUT refusal", id, answers[id])
		}
	}
	if limited < 3 {
		t.Fatalf("%d of 8 subscribes were rate-limited with a bucket of 4: %v", limited, answers)
	}
}
