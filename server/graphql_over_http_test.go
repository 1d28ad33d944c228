package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"singletable/server"
)

// Requests refused before execution (a document that does not parse or validate, variables that
// do not coerce) follow GraphQL over HTTP: 200 under application/json, 400 under
// application/graphql-response+json, and never a "data" entry. The e2e suite runs the whole
// graphql-http audit; this pins the cases the server had to be changed for.
func TestRequestErrorsFollowGraphQLOverHTTP(t *testing.T) {
	a := newAPI(t, server.Config{})
	const gqlResponseJSON = "application/graphql-response+json"
	cases := []struct {
		name, query, vars, wantCode string
	}{
		{"parse", "{", "", "GRAPHQL_PARSE_FAILED"},
		{"validation", "{ noSuchField }", "", "GRAPHQL_VALIDATION_FAILED"},
		{"coercion", "query Q($n: Int) { organizations(first: $n) { edges { cursor } } }", `{"n": "many"}`, ""},
	}
	for _, c := range cases {
		for _, method := range []string{http.MethodPost, http.MethodGet} {
			for accept, wantStatus := range map[string]int{
				"":                              http.StatusOK,
				"application/json":              http.StatusOK,
				gqlResponseJSON:                 http.StatusBadRequest,
				gqlResponseJSON + ", */*;q=0.5": http.StatusBadRequest,
			} {
				var req *http.Request
				if method == http.MethodPost {
					body := map[string]any{"query": c.query}
					if c.vars != "" {
						body["variables"] = json.RawMessage(c.vars)
					}
					b, _ := json.Marshal(body)
					req, _ = http.NewRequest(method, a.url+"/query", strings.NewReader(string(b)))
					req.Header.Set("Content-Type", "application/json")
				} else {
					q := url.Values{"query": {c.query}}
					if c.vars != "" {
						q.Set("variables", c.vars)
					}
					req, _ = http.NewRequest(method, a.url+"/query?"+q.Encode(), nil)
				}
				if accept != "" {
					req.Header.Set("Accept", accept)
				}
				a.authorize(req)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var body map[string]json.RawMessage
				if err := json.Unmarshal(raw, &body); err != nil {
					t.Fatalf("%s %s accept %q: not JSON: %s", c.name, method, accept, raw)
				}
				ctype := resp.Header.Get("Content-Type")
				wantType := map[bool]string{true: gqlResponseJSON, false: "application/json"}[strings.HasPrefix(accept, gqlResponseJSON)]
				if resp.StatusCode != wantStatus || !strings.HasPrefix(ctype, wantType) {
					t.Errorf("%s %s accept %q: %d %s, want %d %s", c.name, method, accept, resp.StatusCode, ctype, wantStatus, wantType)
				}
				if _, has := body["data"]; has {
					t.Errorf("%s %s accept %q: a refused request has a data entry: %s", c.name, method, accept, raw)
				}
				var errs []gqlError
				_ = json.Unmarshal(body["errors"], &errs)
				if len(errs) == 0 || errs[0].Extensions["code"] == nil || (c.wantCode != "" && errs[0].Extensions["code"] != c.wantCode) {
					t.Errorf("%s %s accept %q: errors %s, want code %q", c.name, method, accept, body["errors"], c.wantCode)
				}
				if !strings.Contains(string(body["extensions"]), `"dynamodb"`) {
					t.Errorf("%s %s accept %q: no cost extension: %s", c.name, method, accept, raw)
				}
			}
		}
	}
	// An operation that executes keeps its data entry and 200, field errors or not.
	r := a.query(`{ node(id: "bm90IGFuIGlk") { id } }`, nil)
	if r.status != http.StatusOK || string(r.Data) == "" {
		t.Fatalf("executed operation: %d data %s errors %+v", r.status, r.Data, r.Errors)
	}
}
