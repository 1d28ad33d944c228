package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"singletable/auth"
	"singletable/fleet"
	"singletable/fleet/fleettest"
	"singletable/repository/store/storetest"
	"singletable/server"
	"singletable/telemetry"
)

// passed is the decision of a request the front door let through: over HTTP and Server-Sent
// Events (a query's incremental delivery) its data, over WebSocket the refusal of a query that only
// comes after the front door (it serves subscriptions only).
const passed = "passed"

// decision reads what became of a request from its errors: passed, or the code that refused it.
func decision(status int, data json.RawMessage, errs []gqlError) string {
	if len(errs) == 0 && status == http.StatusOK && len(data) > 0 && string(data) != "null" {
		return passed
	}
	if len(errs) == 0 {
		return "no answer"
	}
	if strings.Contains(errs[0].Message, "subscriptions only") {
		return passed
	}
	code, _ := errs[0].Extensions["code"].(string)
	if code == "" {
		code = "uncoded: " + errs[0].Message
	}
	if limit, _ := errs[0].Extensions["limit"].(string); limit != "" {
		code += " (" + limit + ")"
	}
	return code
}

// persisted is the extensions member of an automatic persisted query, its hash member spelled
// as given.
func persisted(member, hash string) map[string]any {
	return map[string]any{"persistedQuery": map[string]any{"version": 1, member: hash}}
}

// viaPOST, viaGET, viaSSE and viaWS send one request body over one transport and read the
// front door's decision on it.
func (a *api) viaPOST(body map[string]any) string {
	r := a.send(body, nil)
	return decision(r.status, r.Data, r.Errors)
}

func (a *api) viaGET(body map[string]any) string {
	q := url.Values{}
	for k, v := range body {
		if s, ok := v.(string); ok {
			q.Set(k, s)
		} else {
			raw, _ := json.Marshal(v)
			q.Set(k, string(raw))
		}
	}
	req, _ := http.NewRequest(http.MethodGet, a.url+"/query?"+q.Encode(), nil)
	a.authorize(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	r := decodeResponse(a.t, resp)
	return decision(r.status, r.Data, r.Errors)
}

func (a *api) viaSSE(body any) string {
	raw, _ := json.Marshal(body)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.url+"/query", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	a.authorize(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		r := decodeResponse(a.t, resp)
		return decision(http.StatusBadRequest, r.Data, r.Errors)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var e event
			_ = json.Unmarshal([]byte(data), &e)
			return decision(http.StatusOK, e.Data, e.Errors) // a query's first payload (incremental delivery)
		}
	}
	return "no answer"
}

func (a *api) viaWS(body any) string {
	return a.viaWSMany(body)[0]
}

// viaWSMany sends each body as a subscribe on one WebSocket, one after the other, and reads the
// front door's decision on each.
func (a *api) viaWSMany(bodies ...any) []string {
	ws := a.dialWS(a.token)
	if m, err := ws.next(waitFor); err != nil || m.Type != "connection_ack" {
		a.t.Fatalf("connection_init answered %+v, %v", m, err)
	}
	var out []string
	for i, body := range bodies {
		raw, _ := json.Marshal(body)
		id := fmt.Sprint(i + 1)
		ws.send(wsMessage{ID: id, Type: "subscribe", Payload: raw})
		m, err := ws.next(waitFor)
		for err == nil && (m.ID != id || m.Type == "complete") {
			m, err = ws.next(waitFor)
		}
		if err != nil {
			a.t.Fatalf("subscribe: %v", err)
		}
		var e event
		switch m.Type {
		case "error":
			_ = json.Unmarshal(m.Payload, &e.Errors)
		case "next":
			_ = json.Unmarshal(m.Payload, &e)
		}
		out = append(out, decision(http.StatusBadRequest, e.Data, e.Errors))
	}
	_ = ws.conn.Close(websocket.StatusNormalClosure, "")
	return out
}

// The same hostile request shapes, sent over POST, GET, Server-Sent Events and a WebSocket under
// TRUSTED_DOCUMENTS_MODE=enforce, get the same decision from the one front door: a member in any
// case is judged as it is read, a member spelled twice is refused, and every refusal is counted.
func TestOneFrontDoorDecidesAlikeOnEveryTransport(t *testing.T) {
	metrics := telemetry.NewMetrics()
	a := newAPI(t, server.Config{TrustedDocuments: relayManifest(t), TrustedDocumentsMode: server.TrustedEnforce, Metrics: metrics})
	a.seedSaaS(1, 0, 0)
	trusted, untrusted := sha256Hex(trustedOrgs), sha256Hex(untrustedOrgs)
	twice := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": trusted, "SHA256Hash": untrusted}}
	shapes := []struct {
		name string
		body map[string]any
		want string
	}{
		{"the manifest's text", map[string]any{"query": trustedOrgs}, passed},
		{"the manifest's hash alone", map[string]any{"extensions": persisted("sha256Hash", trusted)}, passed},
		{"text and its hash", map[string]any{"query": trustedOrgs, "extensions": persisted("sha256Hash", trusted)}, passed},
		{"a foreign hash alone", map[string]any{"extensions": persisted("sha256Hash", untrusted)}, server.CodePersistedQueryNotFound},
		{"a foreign hash, member in capitals", map[string]any{"extensions": persisted("SHA256Hash", untrusted)}, server.CodePersistedQueryNotFound},
		{"a foreign hash, member in lower case", map[string]any{"extensions": persisted("sha256hash", untrusted)}, server.CodePersistedQueryNotFound},
		{"foreign text and its hash", map[string]any{"query": untrustedOrgs, "extensions": persisted("sha256Hash", untrusted)}, server.CodeTrustedDocumentRequired},
		{"foreign text", map[string]any{"query": untrustedOrgs}, server.CodeTrustedDocumentRequired},
		{"the hash member twice", map[string]any{"extensions": twice}, "BAD_USER_INPUT"},
		{"persistedQuery twice", map[string]any{"extensions": map[string]any{"persistedQuery": persisted("sha256Hash", trusted)["persistedQuery"],
			"PersistedQuery": persisted("sha256Hash", untrusted)["persistedQuery"]}}, "BAD_USER_INPUT"},
	}
	refusals := 0.0
	for _, s := range shapes {
		got := map[string]string{"POST": a.viaPOST(s.body), "GET": a.viaGET(s.body), "SSE": a.viaSSE(s.body), "WebSocket": a.viaWS(s.body)}
		for transport, d := range got {
			if d != s.want {
				t.Errorf("%s over %s: %s, want %s", s.name, transport, d, s.want)
			}
		}
		if s.want == server.CodePersistedQueryNotFound || s.want == server.CodeTrustedDocumentRequired {
			refusals += 4
		}
	}
	// A batch (an array) is no request a transport runs: refused everywhere.
	batch := []any{map[string]any{"query": trustedOrgs}}
	for transport, d := range map[string]string{"SSE": a.viaSSE(batch), "WebSocket": a.viaWS(batch)} {
		if d == passed {
			t.Errorf("a batch over %s passed", transport)
		}
	}
	if r := a.post(bytes.NewReader([]byte(`[{"query":"`+trustedOrgs+`"}]`)), nil); r.status == http.StatusOK {
		t.Errorf("a batch over POST: %d %s", r.status, r.raw)
	}
	if got := untrustedCount(t, metrics, server.UntrustedRefused); got < refusals {
		t.Errorf("refusals counted %v, want at least %v (one for each, over every transport)", got, refusals)
	}
}

// A document registered while a fleet ran in log mode stays in Redis for a day; once enforce is
// on, its hash alone is refused over a WebSocket, whatever the case of its member, as over HTTP,
// and the refusal is counted.
func TestEnforceRefusesAPersistedHashOverWebSocketInAnyCase(t *testing.T) {
	f, err := fleet.Open(fleettest.URL(t), fleet.Options{Prefix: "test-" + t.Name() + ":"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	repo := storetest.New(t)
	logging := newAPIOn(t, repo, server.Config{TrustedDocuments: relayManifest(t), TrustedDocumentsMode: server.TrustedLog, SharedPersistedQueries: f})
	metrics := telemetry.NewMetrics()
	enforcing := newAPIOn(t, repo, server.Config{TrustedDocuments: relayManifest(t), TrustedDocumentsMode: server.TrustedEnforce, SharedPersistedQueries: f, Metrics: metrics})
	hash := sha256Hex(untrustedOrgs)
	if d := logging.viaWS(map[string]any{"query": untrustedOrgs, "extensions": persisted("sha256Hash", hash)}); d != passed {
		t.Fatalf("registering under log: %s", d)
	}
	if d := logging.viaWS(map[string]any{"extensions": persisted("SHA256Hash", hash)}); d != passed {
		t.Fatalf("the registered hash under log: %s", d)
	}
	for _, member := range []string{"SHA256Hash", "Sha256Hash", "sha256hash", "sha256Hash"} {
		if d := enforcing.viaWS(map[string]any{"extensions": persisted(member, hash)}); d != server.CodePersistedQueryNotFound {
			t.Errorf("%s over WebSocket under enforce: %s", member, d)
		}
	}
	if got := untrustedCount(t, metrics, server.UntrustedRefused); got != 4 {
		t.Errorf("refusals counted %v, want 4", got)
	}
}

// Persisted queries over a WebSocket belong to the token's principal, not to the address the
// socket came from: of two customers behind one address, the one that did not register a hash
// does not run the other's document by it.
func TestPersistedQueriesOverWebSocketAreThePrincipals(t *testing.T) {
	a := newAPI(t, server.Config{})
	one := a.as(auth.Claims{Subject: "customer-one", Roles: []string{"admin"}})
	two := a.as(auth.Claims{Subject: "customer-two", Roles: []string{"admin"}})
	hash := sha256Hex(untrustedOrgs)
	if d := one.viaWS(map[string]any{"query": untrustedOrgs, "extensions": persisted("sha256Hash", hash)}); d != passed {
		t.Fatalf("registering over WebSocket: %s", d)
	}
	if d := one.viaWS(map[string]any{"extensions": persisted("sha256Hash", hash)}); d != passed {
		t.Fatalf("its own hash over WebSocket: %s", d)
	}
	if d := one.viaPOST(map[string]any{"extensions": persisted("sha256Hash", hash)}); d != passed {
		t.Fatalf("its own hash over POST: %s", d)
	}
	for name, d := range map[string]string{"WebSocket": two.viaWS(map[string]any{"extensions": persisted("sha256Hash", hash)}),
		"POST": two.viaPOST(map[string]any{"extensions": persisted("sha256Hash", hash)})} {
		if d != server.CodePersistedQueryNotFound {
			t.Errorf("another principal's hash over %s: %s", name, d)
		}
	}
}

// Two spellings of Authorization in connection_init close the socket with 4400, whichever of
// them Go's map order reads last; two Authorization headers answer 400.
func TestAmbiguousCredentialsAreRefused(t *testing.T) {
	a := newAPI(t, server.Config{})
	for i := range 12 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(a.url, "http")+"/query", &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		c := &wsClient{t: t, conn: conn}
		raw, _ := json.Marshal(map[string]any{"Authorization": "Bearer " + a.token, "authorization": "Bearer junk"})
		c.send(wsMessage{Type: "connection_init", Payload: raw})
		if _, err := c.next(waitFor); websocketCloseStatus(err) != 4400 {
			t.Fatalf("attempt %d: %v, want a close with 4400", i+1, err)
		}
	}
	body, _ := json.Marshal(map[string]any{"query": "{ __typename }"})
	req, _ := http.NewRequest(http.MethodPost, a.url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Add("Authorization", "Bearer "+a.token)
	req.Header.Add("Authorization", "Bearer junk")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(data), "BAD_USER_INPUT") {
		t.Fatalf("two Authorization headers: %d %s", resp.StatusCode, data)
	}
}

// transports sends one body over each transport and reads the front door's decision on each.
func (a *api) transports(body map[string]any) map[string]string {
	return map[string]string{"POST": a.viaPOST(body), "GET": a.viaGET(body), "SSE": a.viaSSE(body), "WebSocket": a.viaWS(body)}
}

// The front door's limits decide alike on every transport: a principal over its request rate,
// one whose capacity budget is spent, and an operation over the complexity limit are refused
// with the same code and extensions.limit over POST, GET, Server-Sent Events and a WebSocket's
// subscribe (which, before one gate admitted every transport, got a subscription its budget
// could not pay for, and a rate refusal without its limit).
func TestOneFrontDoorLimitsAlikeOnEveryTransport(t *testing.T) {
	light := map[string]any{"query": `{ __typename }`}
	t.Run("rate", func(t *testing.T) {
		a := newAPI(t, server.Config{RateLimitRPS: 0.001, RateLimitBurst: 2})
		for _, transport := range []string{"POST", "GET", "SSE", "WebSocket"} {
			p := a.as(auth.Claims{Subject: "rate-" + transport, Roles: []string{string(auth.RoleAdmin)}})
			var got []string
			if transport == "WebSocket" {
				got = p.viaWSMany(light, light, light)
			} else {
				for range 3 {
					got = append(got, map[string]func(map[string]any) string{"POST": p.viaPOST, "GET": p.viaGET,
						"SSE": func(b map[string]any) string { return p.viaSSE(b) }}[transport](light))
				}
			}
			if want := []string{passed, passed, "RATE_LIMITED (rate)"}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("three requests over %s with a burst of 2: %v, want %v", transport, got, want)
			}
		}
	})
	t.Run("budget", func(t *testing.T) {
		// 0.1 RCU per second: a burst of 1 RCU, which one read of the organizations and their users
		// spends; the bucket then takes about 10 s to hold capacity again.
		a := newAPI(t, server.Config{CapacityBudgetRCU: 0.1})
		a.seedSaaS(3, 2, 1)
		const read = `{ organizations(first: 10) { edges { node { name users { edges { node { name } } } } } } }`
		p := a.as(auth.Claims{Subject: "spender", Roles: []string{string(auth.RoleAdmin)}})
		for i := 0; ; i++ {
			if r := p.query(read, nil); r.status == http.StatusTooManyRequests {
				break
			} else if i == 20 {
				t.Fatalf("the budget is never spent: %s", r.raw)
			}
		}
		for transport, d := range p.transports(light) {
			if d != "RATE_LIMITED (capacity)" {
				t.Errorf("over %s once the budget is spent: %s", transport, d)
			}
		}
	})
	t.Run("complexity", func(t *testing.T) {
		// A subscription, the one operation every transport takes as far as its plan: each of its
		// events would read a page of the reporter's tickets (50 points), over a limit of 10.
		a := newAPI(t, server.Config{ComplexityLimit: 10})
		d := a.seedSaaS(1, 0, 0)
		heavy := map[string]any{"query": `subscription($org: ID!) { ticketChanged(organizationId: $org) { ticket { reporter { tickets(first: 50) { edges { node { title } } } } } } }`,
			"variables": map[string]any{"org": orgID(d.orgs[0])}}
		for transport, d := range a.transports(heavy) {
			if d != "COMPLEXITY_LIMIT_EXCEEDED (complexity)" {
				t.Errorf("a subscription over the complexity limit over %s: %s", transport, d)
			}
		}
		for transport, d := range a.transports(light) {
			if d != passed {
				t.Errorf("a light query over %s: %s", transport, d)
			}
		}
	})
}
