package server_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"

	"singletable/auth"
	"singletable/server"
)

// A missing, malformed, expired or badly signed token: 401, WWW-Authenticate: Bearer, one
// UNAUTHENTICATED error, no data, and no DynamoDB call. The probes and the playground need none.
func TestRequestsWithoutAValidTokenAreRefused(t *testing.T) {
	a := newAPI(t, server.Config{})
	if _, err := a.repo.CreateOrganization(t.Context(), "Zebra Secret Corp"); err != nil {
		t.Fatal(err)
	}
	expired, err := auth.MintHS256(testSecret, adminClaims, auth.MintOptions{Now: time.Now().Add(-2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := auth.MintHS256([]byte("not-the-server-secret-0123456789abcdefgh"), adminClaims, auth.MintOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q := `{ organizations { edges { node { name } } } }`
	for name, header := range map[string]string{
		"missing":       "",
		"malformed":     "Bearer not-a-token",
		"basic scheme":  "Basic dXNlcjpwYXNz",
		"empty bearer":  "Bearer ",
		"expired":       "Bearer " + expired,
		"badly signed":  "Bearer " + otherKey,
		"alg none":      "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4Iiwicm9sZXMiOlsiYWRtaW4iXSwiZXhwIjo0MTAyNDQ0ODAwfQ.",
		"truncated sig": "Bearer " + adminToken(t)[:len(adminToken(t))-4],
	} {
		r := a.rawWith(header, q, nil)
		if r.status != http.StatusUnauthorized || r.header.Get("WWW-Authenticate") != "Bearer" || r.code(t) != "UNAUTHENTICATED" ||
			r.Data != nil || strings.Contains(r.body, `"data"`) || r.Extensions.DynamoDB == nil || r.Extensions.DynamoDB.TotalCalls != 0 {
			t.Errorf("%s: %d %v %s", name, r.status, r.header, r.body)
		}
		leaksNothing(t, name, r)
	}
	// GET queries are authenticated the same way.
	resp, err := http.Get(a.url + "/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(body), "Zebra") {
		t.Fatalf("anonymous GET: %d %s", resp.StatusCode, body)
	}
	for _, path := range []string{"/healthz", "/readyz", "/"} {
		resp, err := http.Get(a.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("anonymous GET %s = %d", path, resp.StatusCode)
		}
	}
	// A valid token passes.
	if r := a.raw(q, nil); r.status != 200 || !strings.Contains(r.body, "Zebra Secret Corp") {
		t.Fatalf("admin: %d %s", r.status, r.body)
	}
}

// A correctly signed token whose claims repeat a name is refused like any invalid token: jwx
// keeps the last value, so `"roles": [], …, "roles": ["admin"]` would make an admin of a caller
// that a reader keeping the first value (a gateway, say) sees with no role at all.
func TestTokenRepeatingAClaimIsRefused(t *testing.T) {
	a := newAPI(t, server.Config{})
	exp := time.Now().Add(time.Hour).Unix()
	signed := func(payload string) string {
		t.Helper()
		tok, err := jws.Sign([]byte(payload), jws.WithKey(jwa.HS256(), testSecret))
		if err != nil {
			t.Fatal(err)
		}
		return "Bearer " + string(tok)
	}
	q := `{ organizations { edges { node { name } } } }`
	if r := a.rawWith(signed(fmt.Sprintf(`{"sub":"mallory","exp":%d,"roles":["admin"]}`, exp)), q, nil); r.status != http.StatusOK || len(r.Errors) != 0 {
		t.Fatalf("the same claims without the repetition: %d %s", r.status, r.body)
	}
	r := a.rawWith(signed(fmt.Sprintf(`{"sub":"mallory","roles":[],"exp":%d,"roles":["admin"]}`, exp)), q, nil)
	if r.status != http.StatusUnauthorized || r.header.Get("WWW-Authenticate") != "Bearer" || r.code(t) != "UNAUTHENTICATED" ||
		strings.Contains(r.body, `"data"`) || r.Extensions.DynamoDB == nil || r.Extensions.DynamoDB.TotalCalls != 0 {
		t.Fatalf("a token repeating roles: %d %s", r.status, r.body)
	}
}

// A server configured without an authenticator refuses everything; auth.Disabled serves
// everyone as admin.
func TestAuthenticatorIsRequired(t *testing.T) {
	a := newAPI(t, server.Config{})
	open := newAPIOn(t, a.repo, server.Config{Auth: auth.Disabled()})
	if r := open.rawWith("", `{ organizations { edges { node { name } } } }`, nil); r.status != 200 || len(r.Errors) != 0 {
		t.Fatalf("disabled: %d %s", r.status, r.body)
	}
	ts := httptest.NewServer(server.New(a.repo, server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	defer ts.Close()
	closed := &api{t: t, repo: a.repo, url: ts.URL, token: adminToken(t)}
	if r := closed.raw(`{ organizations { edges { node { name } } } }`, nil); r.status != http.StatusUnauthorized || r.code(t) != "UNAUTHENTICATED" {
		t.Fatalf("no authenticator: %d %s", r.status, r.body)
	}
}
