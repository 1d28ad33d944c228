package server_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"singletable/auth"
	"singletable/server"
	"singletable/telemetry"
)

const (
	trustedOrgs   = `query Orgs { organizations(first: 2) { edges { node { name } } } }`
	trustedCreate = `mutation CreateOrg($input: CreateOrganizationInput!) { createOrganization(input: $input) { name } }`
	untrustedOrgs = `query Other { organizations(first: 1) { edges { node { id } } } }`
)

// relayManifest is a Relay compiler persisted_queries.json (id → text) of the documents above
// and ticketSubscription.
func relayManifest(t *testing.T) *server.TrustedDocuments {
	t.Helper()
	raw, _ := json.Marshal(map[string]string{"orgs-md5": trustedOrgs, "create-md5": trustedCreate, "tickets-md5": ticketSubscription})
	docs, err := server.ParseTrustedDocuments(raw)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// send posts a request body of any shape with the api's token and extra headers.
func (a *api) send(body map[string]any, header http.Header) gqlResponse {
	a.t.Helper()
	raw, _ := json.Marshal(body)
	return a.post(bytes.NewReader(raw), header)
}

// refusedBeforeParsing checks a 400 with one error of code and no DynamoDB call.
func refusedBeforeParsing(t *testing.T, name string, r gqlResponse, code string) {
	t.Helper()
	if r.status != http.StatusBadRequest || r.code(t) != code || r.Data != nil {
		t.Fatalf("%s: status %d, %s", name, r.status, r.raw)
	}
	if r.Extensions.DynamoDB != nil && r.Extensions.DynamoDB.TotalCalls != 0 {
		t.Fatalf("%s: %d DynamoDB calls", name, r.Extensions.DynamoDB.TotalCalls)
	}
}

// servedOrgs checks an answer of trustedOrgs.
func servedOrgs(t *testing.T, name string, r gqlResponse) {
	t.Helper()
	if r.status != http.StatusOK || len(r.Errors) > 0 || !strings.Contains(string(r.Data), `"organizations"`) {
		t.Fatalf("%s: status %d, %s", name, r.status, r.raw)
	}
}

// Under enforce, a manifest document runs when named by documentId, Relay's doc_id, an automatic
// persisted query's hash, or its exact text; anything else is refused with 400 and a code before
// it is parsed, and without a DynamoDB call. An admin's bypass header runs it; anyone else's not.
func TestTrustedDocumentsEnforced(t *testing.T) {
	metrics := telemetry.NewMetrics()
	a := newAPI(t, server.Config{TrustedDocuments: relayManifest(t), TrustedDocumentsMode: server.TrustedEnforce, Metrics: metrics})
	a.seedSaaS(1, 0, 0)
	id := "sha256:" + sha256Hex(trustedOrgs)
	servedOrgs(t, "documentId", a.send(map[string]any{"documentId": id}, nil))
	servedOrgs(t, "documentId in capitals", a.send(map[string]any{"documentId": id[:7] + strings.ToUpper(id[7:])}, nil))
	servedOrgs(t, "doc_id", a.send(map[string]any{"doc_id": "orgs-md5"}, nil))
	servedOrgs(t, "persisted query hash", sendPersisted(t, a, "", sha256Hex(trustedOrgs)))
	servedOrgs(t, "the exact text", a.query(trustedOrgs, nil))

	refusedBeforeParsing(t, "free text", a.query(untrustedOrgs, nil), server.CodeTrustedDocumentRequired)
	refusedBeforeParsing(t, "malformed free text", a.query(`{ organizations(`, nil), server.CodeTrustedDocumentRequired)
	refusedBeforeParsing(t, "unknown documentId", a.send(map[string]any{"documentId": "sha256:" + sha256Hex(untrustedOrgs)}, nil), server.CodePersistedQueryNotFound)
	refusedBeforeParsing(t, "unknown doc_id", a.send(map[string]any{"doc_id": "nope"}, nil), server.CodePersistedQueryNotFound)
	refusedBeforeParsing(t, "unknown hash", sendPersisted(t, a, "", sha256Hex(untrustedOrgs)), server.CodePersistedQueryNotFound)
	refusedBeforeParsing(t, "registering a hash", sendPersisted(t, a, untrustedOrgs, sha256Hex(untrustedOrgs)), server.CodeTrustedDocumentRequired)
	refusedBeforeParsing(t, "free text beside an id of another type", a.send(map[string]any{"query": untrustedOrgs, "documentId": 0}, nil), server.CodeTrustedDocumentRequired)
	upper := sendPersisted(t, a, "", strings.ToUpper(sha256Hex(trustedOrgs)))
	if upper.Data != nil || upper.code(t) != server.CodePersistedQueryNotFound {
		t.Fatalf("a persisted query's hash in capitals: %s", upper.raw)
	}

	bypass := http.Header{server.TrustedDocumentsBypassHeader: {"true"}}
	servedOrgs(t, "an admin's bypass", a.send(map[string]any{"query": untrustedOrgs}, bypass))
	member := a.as(auth.Claims{Subject: "s", Roles: []string{string(auth.RoleSales)}})
	refusedBeforeParsing(t, "another's bypass", member.send(map[string]any{"query": untrustedOrgs}, bypass), server.CodeTrustedDocumentRequired)

	for outcome, want := range map[string]float64{server.UntrustedRefused: 9, server.UntrustedBypassed: 1, server.UntrustedServed: 0} {
		if got := untrustedCount(t, metrics, outcome); got != want {
			t.Errorf("%s documents counted %v, want %v", outcome, got, want)
		}
	}
}

// untrustedCount reads the untrusted-documents counter of one outcome from the metrics' registry.
func untrustedCount(t *testing.T, m *telemetry.Metrics, outcome string) float64 {
	t.Helper()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != telemetry.Namespace+"_graphql_untrusted_documents_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			if s.GetLabel()[0].GetValue() == outcome {
				return s.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no untrusted-documents series for %s", outcome)
	return 0
}

// Under log, a document outside the manifest runs, and is logged (by hash, never its text) and
// counted; ids of the manifest still resolve.
func TestTrustedDocumentsLogged(t *testing.T) {
	metrics := telemetry.NewMetrics()
	var logs logBuffer
	a := newAPI(t, server.Config{TrustedDocuments: relayManifest(t), TrustedDocumentsMode: server.TrustedLog, Metrics: metrics,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	a.seedSaaS(1, 0, 0)
	r := a.query(untrustedOrgs, nil)
	if r.status != http.StatusOK || len(r.Errors) > 0 {
		t.Fatalf("untrusted under log: %d %s", r.status, r.raw)
	}
	servedOrgs(t, "doc_id", a.send(map[string]any{"doc_id": "orgs-md5"}, nil))
	if got := untrustedCount(t, metrics, server.UntrustedServed); got != 1 {
		t.Fatalf("served untrusted documents counted %v, want 1", got)
	}
	logs.mu.Lock()
	line := strings.Join(logs.lines, "")
	logs.mu.Unlock()
	if !strings.Contains(line, "document outside the trusted documents") || !strings.Contains(line, sha256Hex(untrustedOrgs)) || strings.Contains(line, "organizations(first") {
		t.Fatalf("log: %s", line)
	}
}

// A GET naming a mutation by its id answers 405 with Allow: POST (GraphQL over HTTP); a query
// named by id is served over GET.
func TestTrustedMutationOverGETIsMethodNotAllowed(t *testing.T) {
	a := newAPI(t, server.Config{TrustedDocuments: relayManifest(t), TrustedDocumentsMode: server.TrustedEnforce})
	get := func(params url.Values) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, a.url+"/query?"+params.Encode(), nil)
		a.authorize(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	vars := `{"input":{"name":"By GET"}}`
	resp := get(url.Values{"documentId": {"sha256:" + sha256Hex(trustedCreate)}, "variables": {vars}})
	r := decodeResponse(t, resp)
	if r.status != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != http.MethodPost || len(r.Errors) != 1 {
		t.Fatalf("mutation over GET: %d (Allow %q) %s", r.status, resp.Header.Get("Allow"), r.raw)
	}
	servedOrgs(t, "query over GET", decodeResponse(t, get(url.Values{"doc_id": {"orgs-md5"}})))
	refusedBeforeParsing(t, "free text over GET", decodeResponse(t, get(url.Values{"query": {untrustedOrgs}})), server.CodeTrustedDocumentRequired)
}

// Subscriptions follow the same rule: over Server-Sent Events by documentId, over WebSocket by an
// automatic persisted query's hash; an untrusted subscription over WebSocket gets an error
// message with TRUSTED_DOCUMENT_REQUIRED and never starts.
func TestTrustedDocumentsOverStreams(t *testing.T) {
	a := newLiveAPI(t, server.Config{TrustedDocuments: relayManifest(t), TrustedDocumentsMode: server.TrustedEnforce})
	d := a.seedSaaS(1, 1, 0)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	vars := map[string]any{"org": orgID(org)}
	sse := a.subscribeSSEBody(adminToken(t), map[string]any{"documentId": "sha256:" + sha256Hex(ticketSubscription), "variables": vars})
	ws := a.dialWS(adminToken(t))
	ws.subscribePayload("1", map[string]any{"variables": vars,
		"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": sha256Hex(ticketSubscription)}}})
	bad := a.dialWS(adminToken(t))
	bad.subscribePayload("2", map[string]any{"query": strings.Replace(ticketSubscription, "title", "body", 1), "variables": vars})
	if m, err := bad.next(waitFor); !refusedWith(m, err, server.CodeTrustedDocumentRequired) {
		t.Fatalf("untrusted subscription over WebSocket: %+v %v", m, err)
	}
	time.Sleep(200 * time.Millisecond) // the subscriptions are open once the server has read them
	if _, err := a.repo.CreateTicket(t.Context(), org.ID, user.ID, "Trusted", "b"); err != nil {
		t.Fatal(err)
	}
	if e, ok := sse.next(waitFor); !ok || decodeTicketEvent(t, e).TicketChanged.Ticket.Title != "Trusted" {
		t.Fatalf("no event over Server-Sent Events: %+v", e)
	}
	if e, m, ok := ws.nextEvent(waitFor); !ok || decodeTicketEvent(t, e).TicketChanged.Ticket.Title != "Trusted" {
		t.Fatalf("no event over WebSocket: %+v", m)
	}
}
