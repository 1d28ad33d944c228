package server_test

import (
	"io"
	"net/http"
	"sync"
	"testing"

	"singletable/auth"
)

// Every request of these tests carries a token signed with testSecret; the default principal is
// an admin, and api.as switches to another.
var testSecret = []byte("server-tests-hs256-secret-0123456789abcdef")

var adminClaims = auth.Claims{Subject: "test-admin", Roles: []string{"admin"}}

// testAuth is the verifier of every test server.
func testAuth(t testing.TB) auth.Authenticator {
	t.Helper()
	v, err := auth.New(auth.Config{HS256Secret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// tokenFor mints a token for c.
func tokenFor(t testing.TB, c auth.Claims) string {
	t.Helper()
	tok, err := auth.MintHS256(testSecret, c, auth.MintOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

var (
	adminTokenOnce sync.Once
	adminTok       string
)

// adminToken is a token of adminClaims, minted once.
func adminToken(t testing.TB) string {
	adminTokenOnce.Do(func() { adminTok = tokenFor(t, adminClaims) })
	return adminTok
}

// post is http.Post as an admin.
func post(t testing.TB, url, contentType string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+adminToken(t))
	return http.DefaultClient.Do(req)
}

// get is http.Get as an admin.
func get(t testing.TB, url string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+adminToken(t))
	return http.DefaultClient.Do(req)
}
