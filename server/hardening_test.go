package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
	"singletable/server"
)

func TestTransports(t *testing.T) {
	a := newAPI(t, server.Config{})
	get := func(q string) gqlResponse {
		t.Helper()
		resp, err := get(t, a.url+"/query?query="+url.QueryEscape(q))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return decodeResponse(t, resp)
	}
	if r := get(`{ organizations { edges { cursor } } }`); r.status != 200 || len(r.Errors) != 0 || r.Extensions.DynamoDB.Calls["Query"] != 1 {
		t.Fatalf("GET query: %d %+v %s", r.status, r.Errors, r.Data)
	}
	r := get(`mutation { createOrganization(input: {name: "via GET"}) { id } }`)
	if r.status != http.StatusNotAcceptable || r.code(t) != "BAD_USER_INPUT" || r.Extensions.DynamoDB == nil {
		t.Fatalf("GET mutation: %d %+v", r.status, r.Errors)
	}
	if r := a.ok(`{ organizations { edges { cursor } } }`, nil, nil); strings.Contains(string(r.Data), "cursor\":\"") {
		t.Fatal("the mutation sent with GET was executed")
	}

	resp, err := post(t, a.url+"/query", "application/json", strings.NewReader(`{"query": `))
	if err != nil {
		t.Fatal(err)
	}
	if r := decodeResponse(t, resp); r.status != http.StatusBadRequest || r.code(t) != "BAD_USER_INPUT" {
		t.Fatalf("broken JSON: %d %+v", r.status, r.Errors)
	}
	resp.Body.Close()

	big := `{"query": "{ organizations { edges { cursor } } }", "variables": {"pad": "` + strings.Repeat("x", 2<<20) + `"}}`
	resp, err = post(t, a.url+"/query", "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	if r := decodeResponse(t, resp); r.status != http.StatusRequestEntityTooLarge || r.code(t) != "BAD_USER_INPUT" {
		t.Fatalf("2 MB body: %d %+v", r.status, r.Errors)
	}
	resp.Body.Close()
}

func TestLimitsAndIntrospection(t *testing.T) {
	a := newAPI(t, server.Config{ComplexityLimit: 500, ParserTokenLimit: 200})
	// 10 × 10 × 10 tickets would be far above 500.
	r := a.query(`{ organizations(first: 10) { edges { node { users(first: 10) { edges { node { tickets(first: 10) { edges { node { title } } } } } } } } } }`, nil)
	if c := r.code(t); c != "COMPLEXITY_LIMIT_EXCEEDED" || r.Extensions.DynamoDB == nil || r.Extensions.DynamoDB.TotalCalls != 0 {
		t.Fatalf("complexity: code %q, usage %+v", c, r.Extensions.DynamoDB)
	}
	// The same shape with small pages is allowed: the limit counts `first`.
	a.ok(`{ organizations(first: 2) { edges { node { users(first: 2) { edges { node { tickets(first: 2) { edges { node { title } } } } } } } } } }`, nil, nil)

	r = a.query("{ organizations { edges { node { "+strings.Repeat("name ", 300)+"} } } }", nil)
	if c := r.code(t); c != "GRAPHQL_PARSE_FAILED" {
		t.Fatalf("token limit: code %q", c)
	}

	closed := newAPI(t, server.Config{})
	if r := closed.query(`{ __schema { queryType { name } } }`, nil); len(r.Errors) != 0 {
		t.Fatalf("introspection on: %+v", r.Errors)
	}
	repo := storetest.New(t)
	ts := httptest.NewServer(server.New(repo, server.Config{Introspection: false, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Auth: testAuth(t)}))
	defer ts.Close()
	body, _ := json.Marshal(map[string]string{"query": `{ __schema { queryType { name } } }`})
	resp, err := post(t, ts.URL+"/query", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if r := decodeResponse(t, resp); r.code(t) != "FORBIDDEN" {
		t.Fatalf("introspection off: %+v", r.Errors)
	}
}

func TestProbesAndPlayground(t *testing.T) {
	a := newAPI(t, server.Config{})
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/": 200, "/nope": 404} {
		resp, err := http.Get(a.url + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s = %d, want %d", path, resp.StatusCode, want)
		}
		if path == "/" && !strings.Contains(string(b), "graphiql") {
			t.Errorf("/ is not the GraphiQL playground")
		}
	}

	// A server whose table does not exist is alive but not ready, and says nothing about why.
	missing, err := store.New(t.Context(), repository.Config{Table: repotest.TableName(t), Region: "us-east-1", Endpoint: repotest.Endpoint(t)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(server.New(missing, server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Auth: testAuth(t)}))
	defer ts.Close()
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 503} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || strings.Contains(string(b), "t_") {
			t.Errorf("GET %s = %d %q, want %d without the table name", path, resp.StatusCode, b, want)
		}
	}
	// A query against the missing table is an internal error that hides the table name.
	body, _ := json.Marshal(map[string]string{"query": `{ organizations { edges { cursor } } }`})
	resp, err := post(t, ts.URL+"/query", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := decodeResponse(t, resp)
	if r.code(t) != "INTERNAL_SERVER_ERROR" || strings.Contains(r.Errors[0].Message, "t_") || strings.Contains(r.Errors[0].Message, "ResourceNotFound") {
		t.Fatalf("missing table: %+v", r.Errors)
	}
	if r.Errors[0].Extensions["requestId"] == nil {
		t.Fatal("an internal error should carry the request id for support")
	}
}

func TestCORS(t *testing.T) {
	a := newAPI(t, server.Config{CORSOrigins: []string{"https://app.example"}})
	req, _ := http.NewRequest(http.MethodOptions, a.url+"/query", nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	req.Header.Set("Origin", "https://evil.example")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("a foreign origin was allowed")
	}
}

// /readyz needs no token, so a flood of probes must not become a flood of DynamoDB calls: the
// probes of one second share one DescribeTable.
func TestReadinessProbesShareOneCheck(t *testing.T) {
	var describes atomic.Int64
	a := newAPI(t, server.Config{}, func(c *repository.Config) {
		c.WrapTransport = func(next http.RoundTripper) http.RoundTripper {
			return roundTrip(func(r *http.Request) (*http.Response, error) {
				if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".DescribeTable") {
					describes.Add(1)
				}
				return next.RoundTrip(r)
			})
		}
	})
	describes.Store(0) // creating the table described it too
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(a.url + "/readyz")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("/readyz = %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	// One check, or two if the flood straddled the end of the first check's second.
	if n := describes.Load(); n < 1 || n > 2 {
		t.Fatalf("50 probes made %d DescribeTable calls, want 1 (2 at most)", n)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
