package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"singletable/changefeed"
	"singletable/repository/store/storetest"
	"singletable/repository/stream"
	"singletable/server"
)

// newLiveAPI is newAPI with the instance's hub reading the table's stream, as cmd/server runs it,
// ready before it returns: every write from then on reaches the subscriptions open when it is read.
func newLiveAPI(t *testing.T, cfg server.Config) *api {
	t.Helper()
	a, _ := newLiveAPIWithHub(t, cfg)
	return a
}

// newLiveAPIWithHub is newLiveAPI, also returning its hub.
func newLiveAPIWithHub(t *testing.T, cfg server.Config) (*api, *changefeed.Hub) {
	t.Helper()
	return newLiveAPIWithHubOptions(t, cfg, changefeed.Options{})
}

// newLiveAPIWithHubOptions is newLiveAPIWithHub with the hub configured by opts; its reader looks
// for the stream often, so that a stream that goes away is noticed within a second.
func newLiveAPIWithHubOptions(t *testing.T, cfg server.Config, opts changefeed.Options) (*api, *changefeed.Hub) {
	t.Helper()
	repo := storetest.New(t)
	reader := repo.StreamReader(stream.StreamOptions{PollInterval: 20 * time.Millisecond, DescribeInterval: 200 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	hub := changefeed.New(reader, nil, opts)
	hub.Start(context.Background())
	t.Cleanup(hub.Close)
	select {
	case <-hub.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("the hub did not find the table's stream")
	}
	cfg.Hub = hub
	return newAPIOn(t, repo, cfg), hub
}

// wsMessage is a graphql-transport-ws message.
type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// wsClient is one WebSocket of the graphql-transport-ws protocol.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
}

// dialWS opens a WebSocket to the api and sends connection_init with token (none when ""),
// returning the connection before its connection_ack.
func (a *api) dialWS(token string) *wsClient {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(a.url, "http")+"/query", &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		a.t.Fatal(err)
	}
	a.t.Cleanup(func() { _ = conn.CloseNow() })
	payload := map[string]any{}
	if token != "" {
		payload["Authorization"] = "Bearer " + token
	}
	c := &wsClient{t: a.t, conn: conn}
	raw, _ := json.Marshal(payload)
	c.send(wsMessage{Type: "connection_init", Payload: raw})
	return c
}

func (c *wsClient) send(m wsMessage) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := wsjson.Write(ctx, c.conn, m); err != nil {
		c.t.Fatal(err)
	}
}

// next reads the next message other than a ping (answered) or pong, within d.
func (c *wsClient) next(d time.Duration) (wsMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		var m wsMessage
		if err := wsjson.Read(ctx, c.conn, &m); err != nil {
			return m, err
		}
		switch m.Type {
		case "ping":
			c.send(wsMessage{Type: "pong"})
		case "pong":
		default:
			return m, nil
		}
	}
}

// subscribe waits for connection_ack and starts subscription id.
func (c *wsClient) subscribe(id, query string, vars map[string]any) {
	c.t.Helper()
	c.subscribePayload(id, map[string]any{"query": query, "variables": vars})
}

// subscribePayload is subscribe with the subscribe message's whole payload.
func (c *wsClient) subscribePayload(id string, payload map[string]any) {
	c.t.Helper()
	if m, err := c.next(10 * time.Second); err != nil || m.Type != "connection_ack" {
		c.t.Fatalf("connection_init answered %+v, %v", m, err)
	}
	raw, _ := json.Marshal(payload)
	c.send(wsMessage{ID: id, Type: "subscribe", Payload: raw})
}

// event is one payload of a subscription.
type event struct {
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
}

// nextEvent waits for the next "next" message of the socket, within d; ok is false on timeout or
// another message (returned).
func (c *wsClient) nextEvent(d time.Duration) (event, wsMessage, bool) {
	c.t.Helper()
	m, err := c.next(d)
	if err != nil || m.Type != "next" {
		return event{}, m, false
	}
	var e event
	if err := json.Unmarshal(m.Payload, &e); err != nil {
		c.t.Fatal(err)
	}
	return e, m, true
}

// sseStream is a subscription over Server-Sent Events.
type sseStream struct {
	events chan event
	cancel context.CancelFunc
}

// subscribeSSE opens a subscription over Server-Sent Events with token.
func (a *api) subscribeSSE(token, query string, vars map[string]any) *sseStream {
	a.t.Helper()
	return a.subscribeSSEBody(token, map[string]any{"query": query, "variables": vars})
}

// subscribeSSEBody is subscribeSSE with the request's whole body.
func (a *api) subscribeSSEBody(token string, request map[string]any) *sseStream {
	a.t.Helper()
	body, _ := json.Marshal(request)
	ctx, cancel := context.WithCancel(context.Background())
	a.t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url+"/query", bytes.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		a.t.Fatalf("SSE answered %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &sseStream{events: make(chan event, 16), cancel: cancel}
	go func() {
		defer resp.Body.Close()
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok || strings.TrimSpace(data) == "" {
				continue
			}
			var e event
			if json.Unmarshal([]byte(data), &e) == nil {
				s.events <- e
			}
		}
	}()
	return s
}

// next waits for the stream's next event, within d.
func (s *sseStream) next(d time.Duration) (event, bool) {
	select {
	case e, ok := <-s.events:
		return e, ok
	case <-time.After(d):
		return event{}, false
	}
}

// websocketCloseStatus is the close code err carries (-1 when it is not a close).
func websocketCloseStatus(err error) int {
	return int(websocket.CloseStatus(err))
}
