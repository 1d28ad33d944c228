package server_test

import (
	"html"
	"io"
	"net/http"
	"strings"
	"testing"

	"singletable/server"
)

func TestPlaygroundRoutesAndTheirSwitch(t *testing.T) {
	on := newAPI(t, server.Config{PlaygroundHeaders: map[string]string{"Authorization": "Bearer dev-token"}})
	resp, err := http.Get(on.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := html.UnescapeString(string(b))
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
		!strings.Contains(page, `"Authorization": "Bearer dev-token"`) || !strings.Contains(page, `data-endpoint="/query"`) {
		t.Fatalf("GET / = %d %v\n%s", resp.StatusCode, resp.Header, page)
	}
	off := newAPIOn(t, on.repo, server.Config{DisablePlayground: true})
	for _, p := range []string{"/", "/playground/graphiql.min.js", "/playground/playground.js"} {
		resp, err := http.Get(on.url + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("playground on: GET %s = %d", p, resp.StatusCode)
		}
		resp, err = http.Get(off.url + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("playground off: GET %s = %d, want 404", p, resp.StatusCode)
		}
	}
}
