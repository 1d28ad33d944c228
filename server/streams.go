package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/coder/websocket"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"singletable/apperr"
	"singletable/auth"
)

// Streams: subscriptions travel over WebSocket (the graphql-transport-ws protocol of the
// graphql-ws client) and over Server-Sent Events (graphql-sse's distinct connections: a POST with
// Accept: text/event-stream), both on /query. A stream serves subscriptions only: queries and
// mutations stay on plain HTTP, where the rate limit, the concurrency cap and the time limit
// bound each of them (streamAllows). A stream is long-lived, so what bounds a request does not
// suit it: it takes no concurrency slot (a deferred query over it does: withConcurrencyCap), has
// no overall time limit, and the http.Server's read and write timeouts are lifted for it
// (withStreamDeadlines); what bounds it instead is the hub's cap on subscriptions, a deadline on
// every write, pings, and a time limit per event.

// Keep-alives and limits of the stream transports.
const (
	// wsPingInterval is how often the server pings a WebSocket client (graphql-transport-ws
	// ping); a client that has not answered within two intervals is disconnected, which also
	// frees a connection whose client stopped reading.
	wsPingInterval = 25 * time.Second
	// wsInitTimeout is how long a new WebSocket may wait before its connection_init.
	wsInitTimeout = 10 * time.Second
	// sseKeepAlive is how often an idle Server-Sent Events stream gets a comment line, so that
	// proxies do not close it for inactivity.
	sseKeepAlive = 15 * time.Second
	// streamWriteTimeout bounds each write to a stream: a client that does not take an event in
	// that time is disconnected.
	streamWriteTimeout = 30 * time.Second
	// closeForbidden is the close code of a WebSocket whose connection_init carries no valid
	// token (graphql-ws's 4403 Forbidden); closeTryLater the one of a token that could not be
	// checked because the identity provider's keys are out of reach.
	closeForbidden = 4403
	closeTryLater  = 1013
	// wsSubprotocol is the one WebSocket subprotocol served.
	wsSubprotocol = "graphql-transport-ws"
)

// isStream reports whether r is a WebSocket upgrade or a Server-Sent Events request: what the
// stream transports take (gqlgen's own tests of a request).
func isStream(r *http.Request) bool {
	return transport.Websocket{}.Supports(r) || transport.SSE{}.Supports(r)
}

// isWebSocketUpgrade reports whether r asks to become a WebSocket.
func isWebSocketUpgrade(r *http.Request) bool {
	for _, v := range r.Header.Values("Upgrade") {
		for _, p := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(p), "websocket") {
				return true
			}
		}
	}
	return false
}

// streamAllows refuses a root field of object over a transport that does not serve it: a
// subscription over plain HTTP (which would hold the request until the first event, then end),
// and a query or mutation over a stream, but a query over Server-Sent Events (incremental: its
// deferred fragments come as events).
func streamAllows(ctx context.Context, object string) error {
	ri := requestInfoFrom(ctx)
	stream := ri != nil && ri.stream
	switch {
	case object == "Query" && stream && incrementalRequest(ctx):
		return nil
	case object == "Subscription" && !stream:
		return apperr.New(apperr.CodeBadUserInput, "subscriptions are served over WebSocket (graphql-transport-ws) and Server-Sent Events (Accept: text/event-stream), not plain HTTP")
	case object != "Subscription" && stream:
		return apperr.New(apperr.CodeBadUserInput, "WebSocket and Server-Sent Events serve subscriptions only; send queries and mutations with POST or GET /query")
	}
	return nil
}

// streamOperations refuses, over a stream, every operation that is not a subscription (queries,
// mutations, introspection) and every explain, as soon as the document is validated and before
// it is planned: a socket is not a way around the HTTP path's concurrency cap, time limit and
// budget. (Each subscribe took a token from its principal's rate limit at the front door.) Explain a subscription with POST /query, as any other operation.
type streamOperations struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = streamOperations{}

func (streamOperations) ExtensionName() string                   { return "StreamOperations" }
func (streamOperations) Validate(graphql.ExecutableSchema) error { return nil }

func (streamOperations) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	ri := requestInfoFrom(ctx)
	if ri == nil || !ri.stream || operationType(oc) == subscriptionOperation && !explainRequested(oc) {
		return nil
	}
	if incrementalRequest(ctx) && operationType(oc) == "query" && !explainRequested(oc) {
		return nil // a deferred query over Server-Sent Events (defer_transport.go)
	}
	err := gqlerror.Errorf("WebSocket and Server-Sent Events serve subscriptions only; send queries, mutations, introspection and explain with POST or GET /query")
	errcode.Set(err, string(apperr.CodeBadUserInput))
	return err
}

// withStreamDeadlines prepares a stream for a long life, right before the GraphQL handler (after
// the body was read within the server's read timeout):
//   - a WebSocket must ask for graphql-transport-ws, and come from an allowed origin
//     (originAllowed); its connection loses the server's read and write deadlines, since a
//     hijacked connection keeps them (pings bound it instead);
//   - a Server-Sent Events response loses the read deadline (whose expiry would cancel the
//     request) and gets a deadline on every write instead of one on the whole response.
func withStreamDeadlines(origins []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isStream(r) {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		if (transport.SSE{}).Supports(r) {
			next.ServeHTTP(&deadlineWriter{ResponseWriter: w, rc: rc}, r)
			return
		}
		if !slices.Contains(websocketSubprotocols(r), wsSubprotocol) {
			writeError(w, r, http.StatusBadRequest, "The WebSocket subprotocol must be "+wsSubprotocol+" (the graphql-ws client's).")
			return
		}
		if !originAllowed(r, origins) {
			writeCodedError(w, r, http.StatusForbidden, string(apperr.CodeForbidden), "This origin may not open a WebSocket to this server.")
			return
		}
		_ = rc.SetWriteDeadline(time.Time{})
		next.ServeHTTP(w, r)
	})
}

func websocketSubprotocols(r *http.Request) []string {
	var out []string
	for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(v, ",") {
			out = append(out, strings.TrimSpace(p))
		}
	}
	return out
}

// originAllowed is the Origin check of a WebSocket upgrade, which CORS does not cover (a browser
// lets any page open a socket to any host): a request without Origin (not from a browser), from
// the server's own origin, or from an origin CORS_ALLOWED_ORIGINS lists ("*": any). The token a
// socket uses comes from its connection_init, never from cookies, so another site's page could
// only use a token it already holds; refusing it all the same keeps the WebSocket to the origins
// that may call /query.
func originAllowed(r *http.Request, origins []string) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || slices.Contains(origins, "*") {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return strings.EqualFold(u.Host, r.Host) || slices.Contains(origins, origin)
}

// websocketAccept is the coder/websocket acceptor with the same origin rule (it checks the Origin
// itself too; originAllowed answered first, with our error format).
func websocketAccept(origins []string) transport.CoderWebsocketImplementation {
	opts := websocket.AcceptOptions{OriginPatterns: slices.Clone(origins)}
	if slices.Contains(origins, "*") {
		opts = websocket.AcceptOptions{InsecureSkipVerify: true}
	}
	return transport.CoderWebsocketImplementation{AcceptOptions: opts}
}

// deadlineWriter sets a write deadline before every write and flush of a Server-Sent Events
// response: the stream may last for hours, each write may not.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher: gqlgen's SSE transport needs it.
func (w *deadlineWriter) Flush() {
	_ = w.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	_ = w.rc.Flush()
}

func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wsInit is the WebSocket transport's connection_init check: the payload's Authorization (key in
// any case) is verified as the Authorization header of a request is, by the same Authenticator.
// Missing or invalid: the socket closes with 4403 and no data (1013 when the identity provider's
// keys are out of reach). The connection's context carries the principal, and a tracker that
// closes the socket once the hub is closed and the connection's subscriptions completed
// (closeWhenDrained), and once the token expired (with 4403, its subscriptions ended first).
func wsInit(a auth.Authenticator, streams context.Context) transport.WebsocketInitFunc {
	return func(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
		p, err := verifyInit(ctx, a, payload)
		if err != nil {
			code := closeForbidden
			switch apperr.CodeOf(err) {
			case apperr.CodeUnavailable:
				code = closeTryLater
			case apperr.CodeBadUserInput:
				code = closeBadRequest
			}
			ctx = transport.WithWebsocketCloseCode(ctx, code)
			return transport.AppendCloseReason(ctx, closeReason(code, err)), nil, err
		}
		ctx, cancel := context.WithCancel(auth.WithPrincipal(ctx, p))
		conn := &wsConn{}
		ctx = context.WithValue(ctx, wsConnKey{}, conn)
		stop := context.AfterFunc(streams, func() { conn.closeWhenDrained(cancel) })
		context.AfterFunc(ctx, func() { stop() })
		if g := guardedConnOf(ctx); g != nil {
			g.authenticated()
			if !p.ValidUntil.IsZero() {
				expiry := time.AfterFunc(time.Until(p.ValidUntil), func() {
					g.closeWith(closeForbidden, closeReasonExpiredText)
					conn.closeWhenDrained(cancel)
				})
				context.AfterFunc(ctx, func() { expiry.Stop() })
			}
		}
		return ctx, nil, nil
	}
}

// verifyInit verifies the token of a connection_init payload: its Authorization members, in any
// case, decided on by the front door as a request's headers are (principalOf).
func verifyInit(ctx context.Context, a auth.Authenticator, payload transport.InitPayload) (auth.Principal, error) {
	return principalOf(ctx, a, "connection_init's Authorization", members(payload, "Authorization"))
}

// closeReason is the close frame's reason for a refused connection_init: graphql-ws's
// "Forbidden" (or "Try Again Later") and why, within the 123 bytes a close reason may have.
func closeReason(code int, err error) string {
	msg := "Forbidden"
	switch code {
	case closeTryLater:
		msg = "Try Again Later"
	case closeBadRequest:
		msg = "Bad Request"
	}
	var coded *apperr.Error
	if errors.As(err, &coded) {
		msg += ": " + coded.Message
	}
	if len(msg) > 123 {
		msg = msg[:123]
	}
	return msg
}
