package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"reflect"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"singletable/apperr"
)

// The guard around gqlgen's WebSocket transport. gqlgen speaks the protocol; the guard holds the
// socket to what this server promises whatever a client sends (what it decides on is the
// protocol's, never an operation's: who sends a subscribe, at what rate, with what budget and
// which document is the front door's, as on every transport, frontdoor.go):
//   - the socket is closed when its handler ends, whatever happened (gqlgen returns without
//     closing it when connection_init's payload is not an object: the guard closes it with 4400
//     first);
//   - graphql-transport-ws only, never the legacy graphql-ws (which has no pings);
//   - at most maxPendingSocketsPerAddress sockets of one client address wait for their
//     connection_init: a flood of unauthenticated sockets costs one address a few descriptors;
//   - a subscribe whose id is active closes the socket with 4409, as the protocol says;
//   - when the token expires the socket closes with 4403, once its subscriptions have ended.

// maxPendingSocketsPerAddress bounds the sockets of one client address that have not completed
// connection_init (each waits at most wsInitTimeout).
const maxPendingSocketsPerAddress = 16

// Close codes of graphql-transport-ws.
const (
	closeBadRequest        = 4400
	closeSubscriberExists  = 4409
	closeNormal            = 1000
	closeReasonTerminated  = "terminated"
	closeReasonExpiredText = "Forbidden: the token has expired"
)

// errSocketRefused ends gqlgen's read loop once the guard has closed the socket.
var errSocketRefused = errors.New("websocket closed by the server")

// socketGuard is the WebSocket transport with its guard.
type socketGuard struct {
	transport.Websocket
	trusted []netip.Prefix
	pending *addressCounts
}

var _ graphql.Transport = socketGuard{}

func (g socketGuard) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	addr := addressKey(r, g.trusted)
	if !g.pending.acquire(addr) {
		writeLimitError(w, r, http.StatusTooManyRequests, string(apperr.CodeRateLimited), "sockets",
			"Too many WebSockets of this address have not sent their connection_init.")
		return
	}
	c := &guardedConn{guard: &g, active: map[string]bool{}}
	c.release = sync.OnceFunc(func() { g.pending.release(addr) })
	defer c.release()
	ws := g.Websocket
	ws.Implementation = guardedImplementation{base: g.Websocket.Implementation, conn: c}
	ws.Do(w, r.WithContext(context.WithValue(r.Context(), guardedConnKey{}, c)), exec)
	if c.inner != nil {
		_ = c.WriteClose(closeNormal, closeReasonTerminated)
		_ = c.inner.Close()
	}
}

type guardedConnKey struct{}

// guardedConnOf is the guarded socket of a connection's context (nil outside one).
func guardedConnOf(ctx context.Context) *guardedConn {
	c, _ := ctx.Value(guardedConnKey{}).(*guardedConn)
	return c
}

// guardedImplementation accepts the socket with graphql-transport-ws as its only subprotocol and
// hands gqlgen the guarded connection.
type guardedImplementation struct {
	base transport.WebsocketImplementation
	conn *guardedConn
}

func (i guardedImplementation) Accept(w http.ResponseWriter, r *http.Request, o transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	inner, err := i.base.Accept(w, r, transport.WebsocketAcceptOptions{ResponseHeader: o.ResponseHeader, Subprotocols: []string{wsSubprotocol}})
	if err != nil {
		return nil, err
	}
	i.conn.inner = inner
	return i.conn, nil
}

// guardedConn is one socket as gqlgen sees it, with the guard reading every message first.
type guardedConn struct {
	guard   *socketGuard
	inner   transport.WebsocketConn
	release func() // frees the socket's place among its address's pending ones

	mu        sync.Mutex
	active    map[string]bool // subscription ids the server has not completed
	closeSent bool
	// code and reason replace the close gqlgen sends (the token expired).
	code   int
	reason string
}

// authenticated frees the socket's place among its address's pending ones: its connection_init
// passed.
func (c *guardedConn) authenticated() { c.release() }

// closeWith makes the socket's close, whenever it comes, code and reason.
func (c *guardedConn) closeWith(code int, reason string) {
	c.mu.Lock()
	c.code, c.reason = code, reason
	c.mu.Unlock()
}

// refuse closes the socket with code and reason at once.
func (c *guardedConn) refuse(code int, reason string) error {
	c.closeWith(code, reason)
	_ = c.WriteClose(code, reason)
	return errSocketRefused
}

// wsHead is what the guard reads of a message.
type wsHead struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Payload json.RawMessage `json:"payload"`
}

func (c *guardedConn) NextReader() (int, io.Reader, error) {
	for {
		mt, r, err := c.inner.NextReader()
		if err != nil {
			return mt, r, err
		}
		data, err := io.ReadAll(r)
		if err != nil {
			return mt, nil, err
		}
		var head wsHead
		_ = json.Unmarshal(data, &head) // a malformed message is gqlgen's to answer
		pass, err := c.check(head)
		if err != nil {
			return mt, nil, err
		}
		if pass {
			return mt, bytes.NewReader(data), nil
		}
	}
}

// check decides on one message from the client: pass it to gqlgen, drop it (answered here), or
// close the socket (err).
func (c *guardedConn) check(m wsHead) (pass bool, err error) {
	switch m.Type {
	case "connection_init":
		if p := bytes.TrimSpace(m.Payload); len(p) > 0 && p[0] != '{' && !bytes.Equal(p, []byte("null")) {
			return false, c.refuse(closeBadRequest, "connection_init's payload must be an object")
		}
	case "subscribe":
		c.mu.Lock()
		dup := c.active[m.ID]
		c.active[m.ID] = true
		c.mu.Unlock()
		if dup {
			return false, c.refuse(closeSubscriberExists, "Subscriber for "+m.ID+" already exists")
		}
	}
	return true, nil
}

// WriteJSON forwards gqlgen's message, noting the subscriptions it ends.
func (c *guardedConn) WriteJSON(v any) error {
	if typ, id := messageHead(v); typ == "complete" || typ == "error" {
		c.mu.Lock()
		delete(c.active, id)
		c.mu.Unlock()
	}
	return c.inner.WriteJSON(v)
}

// messageHead reads the type and id of a message gqlgen sends (a struct of its own with the
// exported fields Type and ID).
func messageHead(v any) (typ, id string) {
	rv := reflect.Indirect(reflect.ValueOf(v))
	if rv.Kind() != reflect.Struct {
		return "", ""
	}
	if f := rv.FieldByName("Type"); f.Kind() == reflect.String {
		typ = f.String()
	}
	if f := rv.FieldByName("ID"); f.Kind() == reflect.String {
		id = f.String()
	}
	return typ, id
}

// WriteClose sends the socket's one close frame: the guard's code and reason when it set one.
func (c *guardedConn) WriteClose(code int, reason string) error {
	c.mu.Lock()
	if c.closeSent {
		c.mu.Unlock()
		return nil
	}
	c.closeSent = true
	if c.code != 0 {
		code, reason = c.code, c.reason
	}
	c.mu.Unlock()
	return c.inner.WriteClose(code, reason)
}

func (c *guardedConn) Close() error        { return c.inner.Close() }
func (c *guardedConn) Subprotocol() string { return c.inner.Subprotocol() }

func (c *guardedConn) SetReadLimit(limit int64) {
	if l, ok := c.inner.(transport.WebsocketReadLimiter); ok {
		l.SetReadLimit(limit)
	}
}

func (c *guardedConn) SetReadDeadline(t time.Time) error {
	if d, ok := c.inner.(transport.WebsocketReadDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return nil
}

// addressCounts counts sockets per client address, each address up to max.
type addressCounts struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

func newAddressCounts(max int) *addressCounts { return &addressCounts{max: max, n: map[string]int{}} }

func (a *addressCounts) acquire(addr string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n[addr] >= a.max {
		return false
	}
	a.n[addr]++
	return true
}

func (a *addressCounts) release(addr string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n[addr]--; a.n[addr] <= 0 {
		delete(a.n, addr)
	}
}
