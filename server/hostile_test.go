package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql/introspection"

	"singletable/auth"
	"singletable/repository"
	"singletable/repository/store/storetest"
	"singletable/server"
)

// newAPIExact is newAPI without the helper's forced introspection: the configuration as given.
func newAPIExact(t *testing.T, cfg server.Config, repoOpts ...func(*repository.Config)) *api {
	t.Helper()
	repo := storetest.New(t, repoOpts...)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Auth == nil {
		cfg.Auth = testAuth(t)
	}
	ts := httptest.NewServer(server.New(repo, cfg))
	t.Cleanup(ts.Close)
	return &api{t: t, repo: repo, url: ts.URL, token: adminToken(t)}
}

// refused checks that r is one refusal by the named bound that made no DynamoDB call.
func refused(t *testing.T, name string, r gqlResponse, limit string) {
	t.Helper()
	if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != "GRAPHQL_VALIDATION_FAILED" || r.Errors[0].Extensions["limit"] != limit {
		t.Fatalf("%s: want one GRAPHQL_VALIDATION_FAILED error with limit %q, got %d %+v", name, limit, r.status, r.Errors)
	}
	if r.Extensions.DynamoDB == nil || r.Extensions.DynamoDB.TotalCalls != 0 {
		t.Fatalf("%s: refused documents must make no DynamoDB call: %+v", name, r.Extensions.DynamoDB)
	}
	if len(r.Data) > 0 && string(r.Data) != "null" {
		t.Fatalf("%s: refused document has data %s", name, r.Data)
	}
}

// TestHostileDocumentsAreRefusedBeforeExecution sends the documents that used to pin a core
// (doubling fragments, thousands of repeated fields, deep nesting) to a server with the default
// bounds. The bounds are checked before validation and the complexity walk; the time each
// refusal takes is measured by BenchmarkHostileDocuments.
func TestHostileDocumentsAreRefusedBeforeExecution(t *testing.T) {
	a := newAPI(t, server.Config{})
	org, err := a.repo.CreateOrganization(t.Context(), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{20, 26, 40} {
		refused(t, fmt.Sprintf("doubling fragments n=%d", n), a.query(server.DoublingFragments(n), nil), "fieldRepeats")
	}
	refused(t, "10,000 __typename", a.query("{ "+strings.Repeat("__typename ", 10_000)+"}", nil), "queryBytes")
	refused(t, "5,000 ids in a list", a.query("{ organizations { edges { node { "+strings.Repeat("id ", 5000)+"} } } }", nil), "fieldRepeats")
	deep := "query($id: ID!) { node(id: $id) { " + strings.Repeat("... on Employee { manager { ", 59) + "name" + strings.Repeat(" } }", 59) + " } }"
	refused(t, "depth 60", a.query(deep, map[string]any{"id": orgID(org)}), "depth")
	// 60 KB of comments is under the token limit but over the byte limit: comments count.
	refused(t, "a padded document", a.query("{ __typename }\n#"+strings.Repeat("x", 70_000), nil), "queryBytes")

	// With the byte and token bounds lifted, the field bounds still stop the same documents.
	wide := newAPI(t, server.Config{ParserTokenLimit: 1_000_000, Limits: server.Limits{QueryBytes: 1 << 20}})
	refused(t, "10,000 __typename, no byte bound", wide.query("{ "+strings.Repeat("__typename ", 10_000)+"}", nil), "fieldRepeats")
	var distinct strings.Builder
	for i := range 600 {
		fmt.Fprintf(&distinct, "f%d: __typename ", i)
	}
	refused(t, "600 distinct aliases", wide.query("{ "+distinct.String()+"}", nil), "aliases")

	// Ordinary documents, and the playground's introspection query, pass.
	var out struct {
		Organizations struct {
			Edges []struct{ Node struct{ Name string } }
		}
	}
	a.ok(`{ organizations { edges { node { name } } } }`, nil, &out)
	if len(out.Organizations.Edges) != 1 {
		t.Fatalf("organizations: %+v", out)
	}
	a.ok(introspection.Query, nil, nil)
}

// TestComplexityCountsDynamoDBCalls: ordersByStatus costs a Query per shard, so 250 aliases of
// it (1,000 Queries with 4 shards) are refused before any runs, even with the alias bound lifted.
func TestComplexityCountsDynamoDBCalls(t *testing.T) {
	aliases := func(n int) string {
		var b strings.Builder
		b.WriteString("{ ")
		for i := range n {
			fmt.Fprintf(&b, `o%d: ordersByStatus(status: OPEN, placedAfter: "2020-01-01T00:00:%02dZ", first: 1) { edges { cursor } } `, i, i%60)
		}
		return b.String() + "}"
	}
	a := newAPI(t, server.Config{})
	refused(t, "250 aliases, default bounds", a.query(aliases(250), nil), "aliases")

	lifted := newAPI(t, server.Config{Limits: server.Limits{Aliases: 1000, Fields: 5000}})
	r := lifted.query(aliases(250), nil)
	if r.code(t) != "COMPLEXITY_LIMIT_EXCEEDED" || r.Extensions.DynamoDB.TotalCalls != 0 {
		t.Fatalf("250 ordersByStatus aliases: %+v %+v", r.Errors, r.Extensions.DynamoDB)
	}
	// A few are fine, and cost what complexity says: one Query per shard each.
	r = lifted.ok(aliases(3), nil, nil)
	if got, want := r.calls("Query"), 3*repository.DefaultOrderStatusShards; got != want {
		t.Fatalf("3 ordersByStatus: %d Queries, want %d", got, want)
	}
}

// TestSuggestionsHiddenWithoutIntrospection: "Did you mean" would spell out a private schema's
// fields, arguments, enum values and types.
func TestSuggestionsHiddenWithoutIntrospection(t *testing.T) {
	docs := []string{
		`{ organizatons { edges { cursor } } }`,
		`{ organizations(frist: 2) { edges { cursor } } }`,
		`{ ordersByStatus(status: OPNE) { edges { cursor } } }`,
		`mutation { createOrganization(input: {nam: "x"}) { id } }`,
	}
	open := newAPIExact(t, server.Config{Introspection: true})
	closed := newAPIExact(t, server.Config{Introspection: false})
	for _, d := range docs {
		if r := open.query(d, nil); !strings.Contains(fmt.Sprint(r.Errors), "Did you mean") {
			t.Errorf("introspection on, %s: want a suggestion, got %+v", d, r.Errors)
		}
		r := closed.query(d, nil)
		if len(r.Errors) == 0 || r.Errors[0].Extensions["code"] == nil {
			t.Fatalf("introspection off, %s: %+v", d, r.Errors)
		}
		for _, e := range r.Errors {
			if strings.Contains(e.Message, "Did you mean") || strings.Contains(e.Message, "organizations") && strings.Contains(d, "organizatons") {
				t.Errorf("introspection off, %s: %q suggests names", d, e.Message)
			}
		}
	}
}

// sendPersisted posts an automatic persisted query: its hash, and the document when query is not
// empty (registering it).
func sendPersisted(t *testing.T, a *api, query, hash string) gqlResponse {
	t.Helper()
	return a.post(persistedBody(query, hash), nil)
}

// persistedBody is an automatic persisted query request: the hash, and the document unless "".
func persistedBody(query, hash string) *bytes.Reader {
	req := map[string]any{"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}}
	if query != "" {
		req["query"] = query
	}
	body, _ := json.Marshal(req)
	return bytes.NewReader(body)
}

func sha256Hex(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

// TestPersistedQueryCacheIsBoundedInBytesThroughTheServer drives the persisted-query cache through
// the running handler: a handful of distinct large documents (padded with a comment, as a client
// cycling through unique documents would) push the oldest entry out once their bytes pass
// APQCacheBytes, far below any entry count. A cache bounded by entries would still hold it. The
// oldest entry is one principal's and the newer ones another's: entries are kept per principal,
// but the budget is one for all, so memory stays bounded however many principals there are.
func TestPersistedQueryCacheIsBoundedInBytesThroughTheServer(t *testing.T) {
	const budget = 200 << 10
	a := newAPI(t, server.Config{APQCacheBytes: budget})
	b := a.as(auth.Claims{Subject: "another-admin", Roles: []string{"admin"}})
	sha := sha256Hex
	padded := func(i int) string {
		q := fmt.Sprintf("query Padded%d { organizations(first: 1) { edges { cursor } } }\n", i)
		return q + "# " + strings.Repeat("x", 30<<10)
	}

	first := padded(0)
	if r := sendPersisted(t, a, first, sha(first)); len(r.Errors) != 0 {
		t.Fatalf("register: %+v", r.Errors)
	}
	if r := sendPersisted(t, a, "", sha(first)); len(r.Errors) != 0 {
		t.Fatalf("by hash right after registering: %+v", r.Errors)
	}
	var last string
	for i := 1; i <= 2*budget/(30<<10); i++ {
		last = padded(i)
		if r := sendPersisted(t, b, last, sha(last)); len(r.Errors) != 0 {
			t.Fatalf("register document %d: %+v", i, r.Errors)
		}
	}
	if r := sendPersisted(t, a, "", sha(first)); r.code(t) != "PERSISTED_QUERY_NOT_FOUND" {
		t.Fatalf("the oldest document outlived %d bytes of newer ones in a %d-byte cache: %+v", 2*budget, budget, r.Errors)
	}
	if r := sendPersisted(t, b, "", sha(last)); len(r.Errors) != 0 {
		t.Fatalf("the newest document was evicted: %+v", r.Errors)
	}
}

// TestPersistedQueriesArePerPrincipal: a hash sent alone finds only documents its own principal
// registered. Another principal, even one with the same roles, gets PERSISTED_QUERY_NOT_FOUND,
// exactly as for a hash nobody registered, and learns nothing about what others run. Without a
// subject (AUTH_DISABLED) the principal is the client, as for the rate limit.
func TestPersistedQueriesArePerPrincipal(t *testing.T) {
	a := newAPI(t, server.Config{})
	b := a.as(auth.Claims{Subject: "another-admin", Roles: []string{"admin"}})
	q := `query Mine { organizations { edges { cursor } } }`
	if r := sendPersisted(t, a, q, sha256Hex(q)); len(r.Errors) != 0 {
		t.Fatalf("register: %+v", r.Errors)
	}
	if r := sendPersisted(t, b, "", sha256Hex(q)); r.code(t) != "PERSISTED_QUERY_NOT_FOUND" || r.Extensions.DynamoDB.TotalCalls != 0 {
		t.Fatalf("another principal ran the document by its hash: %+v %s", r.Errors, r.Data)
	}
	if r := sendPersisted(t, a, "", sha256Hex(q)); len(r.Errors) != 0 || r.Extensions.DynamoDB.TotalCalls != 1 {
		t.Fatalf("the principal that registered it, by hash: %+v", r.Errors)
	}
	if r := sendPersisted(t, b, q, sha256Hex(q)); len(r.Errors) != 0 {
		t.Fatalf("the other principal registers it too: %+v", r.Errors)
	}
	if r := sendPersisted(t, b, "", sha256Hex(q)); len(r.Errors) != 0 {
		t.Fatalf("then finds it by hash: %+v", r.Errors)
	}

	open := newAPIOn(t, a.repo, server.Config{Auth: auth.Disabled(), TrustedProxies: mustProxies(t, "127.0.0.1, ::1")})
	from := func(client, query string) gqlResponse {
		return open.post(persistedBody(query, sha256Hex(q)), http.Header{"X-Forwarded-For": {client}})
	}
	if r := from("198.51.100.1", q); len(r.Errors) != 0 {
		t.Fatalf("client 1 registers: %+v", r.Errors)
	}
	if r := from("198.51.100.2", ""); r.code(t) != "PERSISTED_QUERY_NOT_FOUND" {
		t.Fatalf("client 2 ran client 1's document by its hash: %+v", r.Errors)
	}
	if r := from("198.51.100.1", ""); len(r.Errors) != 0 {
		t.Fatalf("client 1 by hash: %+v", r.Errors)
	}
}

// TestPersistedQueriesStoreOnlyBoundedDocuments: automatic persisted queries still work, and a
// document refused by the bounds is never stored under its hash.
func TestPersistedQueriesStoreOnlyBoundedDocuments(t *testing.T) {
	a := newAPI(t, server.Config{})
	send := func(query, hash string) gqlResponse { t.Helper(); return sendPersisted(t, a, query, hash) }
	sha := sha256Hex

	good := `{ organizations { edges { cursor } } }`
	if r := send("", sha(good)); r.code(t) != "PERSISTED_QUERY_NOT_FOUND" {
		t.Fatalf("unknown hash: %+v", r.Errors)
	}
	if r := send(good, sha(good)); len(r.Errors) != 0 {
		t.Fatalf("register: %+v", r.Errors)
	}
	if r := send("", sha(good)); len(r.Errors) != 0 || r.Extensions.DynamoDB.TotalCalls != 1 {
		t.Fatalf("by hash: %+v", r.Errors)
	}

	bad := server.DoublingFragments(30)
	refused(t, "registering a hostile document", send(bad, sha(bad)), "fieldRepeats")
	if r := send("", sha(bad)); r.code(t) != "PERSISTED_QUERY_NOT_FOUND" {
		t.Fatalf("the refused document was stored: %+v", r.Errors)
	}
}
