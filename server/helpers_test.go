package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"singletable/auth"
	"singletable/graph/model"
	"singletable/repository"
	"singletable/repository/saas"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
	"singletable/server"
)

// api is a running server over a fresh table, called through real HTTP.
type api struct {
	t    *testing.T
	repo *store.Store
	url  string
	// token is the bearer token every request sends: an admin's unless as chose another.
	token string
}

// as returns the same server called with a token for c (c's zero value: no token at all).
func (a *api) as(c auth.Claims) *api {
	b := *a
	b.token = ""
	if c.Subject != "" {
		b.token = tokenFor(a.t, c)
	}
	return &b
}

func newAPI(t *testing.T, cfg server.Config, repoOpts ...func(*repository.Config)) *api {
	t.Helper()
	return newAPIOn(t, storetest.New(t, repoOpts...), cfg)
}

// newAPIOn serves an existing repository (to compare two configurations on the same data).
func newAPIOn(t *testing.T, repo *store.Store, cfg server.Config) *api {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if !cfg.Introspection {
		cfg.Introspection = true
	}
	if cfg.Auth == nil {
		cfg.Auth = testAuth(t)
	}
	ts := httptest.NewServer(server.New(repo, cfg))
	t.Cleanup(ts.Close)
	return &api{t: t, repo: repo, url: ts.URL, token: adminToken(t)}
}

type gqlError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

type gqlResponse struct {
	Data       json.RawMessage `json:"data"`
	Errors     []gqlError      `json:"errors"`
	Extensions struct {
		DynamoDB *repository.Usage `json:"dynamodb"`
	} `json:"extensions"`
	status int
	header http.Header
	raw    string // the whole body
}

// code returns the extensions.code of the only error, failing if there is not exactly one.
func (r gqlResponse) code(t *testing.T) string {
	t.Helper()
	if len(r.Errors) != 1 {
		t.Fatalf("want exactly one error, got %d: %+v (data %s)", len(r.Errors), r.Errors, r.Data)
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	return c
}

func (r gqlResponse) calls(op string) int { return r.Extensions.DynamoDB.Calls[op] }

// query POSTs an operation and decodes the response; it fails the test on transport errors only.
func (a *api) query(query string, vars map[string]any) gqlResponse {
	a.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequest(http.MethodPost, a.url+"/query", bytes.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	a.authorize(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	return decodeResponse(a.t, resp)
}

// post sends a raw body to /query with the given headers (Content-Type defaults to JSON). A
// body that is not a *bytes.Reader, *bytes.Buffer or *strings.Reader has no declared length and
// goes out chunked.
// authorize adds the api's bearer token, if it has one, to a request built by hand.
func (a *api) authorize(req *http.Request) {
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
}

func (a *api) post(body io.Reader, header http.Header) gqlResponse {
	a.t.Helper()
	req, err := http.NewRequest(http.MethodPost, a.url+"/query", body)
	if err != nil {
		a.t.Fatal(err)
	}
	a.authorize(req)
	for k, v := range header {
		req.Header[k] = v
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	return decodeResponse(a.t, resp)
}

func decodeResponse(t *testing.T, resp *http.Response) gqlResponse {
	t.Helper()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out gqlResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("response is not JSON (%d): %s", resp.StatusCode, raw)
	}
	out.status, out.header, out.raw = resp.StatusCode, resp.Header, string(raw)
	return out
}

// ok runs an operation that must succeed and unmarshals its data into v.
func (a *api) ok(query string, vars map[string]any, v any) gqlResponse {
	a.t.Helper()
	r := a.query(query, vars)
	if len(r.Errors) > 0 {
		a.t.Fatalf("unexpected errors: %+v", r.Errors)
	}
	if v != nil {
		if err := json.Unmarshal(r.Data, v); err != nil {
			a.t.Fatalf("data %s: %v", r.Data, err)
		}
	}
	if r.Extensions.DynamoDB == nil {
		a.t.Fatal("response lacks extensions.dynamodb")
	}
	return r
}

// saasData is a SaaS dataset created through the repository: orgs × users × tickets.
type saasData struct {
	orgs    []*saas.Organization
	users   map[string][]*saas.User   // by org id, oldest first
	tickets map[string][]*saas.Ticket // by user id, oldest first
}

func (a *api) seedSaaS(orgs, usersPerOrg, ticketsPerUser int) saasData {
	a.t.Helper()
	ctx := context.Background()
	d := saasData{users: map[string][]*saas.User{}, tickets: map[string][]*saas.Ticket{}}
	for o := range orgs {
		org, err := a.repo.CreateOrganization(ctx, "Org "+string(rune('A'+o)))
		if err != nil {
			a.t.Fatal(err)
		}
		d.orgs = append(d.orgs, org)
		for u := range usersPerOrg {
			user, err := a.repo.CreateUser(ctx, org.ID, "User "+string(rune('a'+u)), string(rune('a'+u))+"@"+org.ID+".example")
			if err != nil {
				a.t.Fatal(err)
			}
			d.users[org.ID] = append(d.users[org.ID], user)
			for k := range ticketsPerUser {
				tk, err := a.repo.CreateTicket(ctx, org.ID, user.ID, "Ticket "+string(rune('0'+k)), "body")
				if err != nil {
					a.t.Fatal(err)
				}
				d.tickets[user.ID] = append(d.tickets[user.ID], tk)
			}
		}
	}
	return d
}

func orgID(o *saas.Organization) string { return model.Organizations.IDOf(o.ID) }
func userID(u *saas.User) string        { return model.Users.IDOf(u.OrgID, u.ID) }
func ticketID(t *saas.Ticket) string    { return model.Tickets.ID(t) }

// steppingClock returns a clock that starts at start and advances by step on every call.
func steppingClock(start time.Time, step time.Duration) func() time.Time {
	var n int64
	ch := make(chan struct{}, 1)
	ch <- struct{}{}
	return func() time.Time {
		<-ch
		defer func() { ch <- struct{}{} }()
		n++
		return start.Add(time.Duration(n) * step)
	}
}
