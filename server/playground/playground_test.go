package playground

import (
	"bufio"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, path string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Result(), string(b)
}

func handler(t *testing.T, opts Options) http.Handler {
	t.Helper()
	h, err := Handler(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The committed third-party files are exactly those the fetch script verified and recorded.
func TestEmbeddedAssetsMatchTheirRecordedHashes(t *testing.T) {
	sums, err := files.ReadFile("assets/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	sc := bufio.NewScanner(strings.NewReader(string(sums)))
	for sc.Scan() {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("malformed line %q", sc.Text())
		}
		b, err := files.ReadFile("assets/" + name)
		if err != nil {
			t.Fatalf("%s is listed but not embedded: %v", name, err)
		}
		got := sha256.Sum256(b)
		if hex.EncodeToString(got[:]) != want {
			t.Errorf("%s: sha256 %x, recorded %s (re-run make playground-assets)", name, got, want)
		}
		n++
	}
	if n < 7 {
		t.Fatalf("SHA256SUMS lists %d files, want React, ReactDOM, GraphiQL js/css and their licenses", n)
	}
}

func TestPageLoadsOnlyItsOwnFilesWithIntegrityAndNoInlineScript(t *testing.T) {
	h := handler(t, Options{Endpoint: "/query"})
	resp, page := get(t, h, "/")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET / = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self';", "frame-ancestors 'none'", "connect-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") || strings.Contains(csp, "*") {
		t.Errorf("CSP %q allows more than the page's own origin", csp)
	}
	if strings.Contains(page, "://") {
		t.Errorf("the page names another host:\n%s", page)
	}
	if regexp.MustCompile(`<script>|<script[^>]*>[^<]+</script>|<style|\son[a-z]+=`).MatchString(page) {
		t.Errorf("the page has inline script or style:\n%s", page)
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]+)" integrity="([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(refs) != 6 {
		t.Fatalf("want 4 scripts and 2 stylesheets with integrity, found %d:\n%s", len(refs), page)
	}
	for _, ref := range refs {
		resp, body := get(t, h, ref[1])
		if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("ETag") == "" {
			t.Fatalf("GET %s = %d %v", ref[1], resp.StatusCode, resp.Header)
		}
		sum := sha512.Sum384([]byte(body))
		if got := "sha384-" + base64.StdEncoding.EncodeToString(sum[:]); got != html.UnescapeString(ref[2]) {
			t.Errorf("%s: integrity %s in the page, %s served", ref[1], ref[2], got)
		}
		wantType := map[bool]string{true: "text/javascript", false: "text/css"}[strings.HasSuffix(ref[1], ".js")]
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), wantType) {
			t.Errorf("%s: Content-Type %s", ref[1], resp.Header.Get("Content-Type"))
		}
	}
	if resp, _ := get(t, h, AssetPrefix+"graphiql.min.js", "If-None-Match", etagOf(t, h, AssetPrefix+"graphiql.min.js")); resp.StatusCode != http.StatusNotModified {
		t.Errorf("a revalidation with the current ETag got %d, want 304", resp.StatusCode)
	}
	for _, p := range []string{AssetPrefix + "nope.js", AssetPrefix + "SHA256SUMS", AssetPrefix + "../playground.go", AssetPrefix + "graphiql.LICENSE"} {
		if resp, _ := get(t, h, p); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, resp.StatusCode)
		}
	}
}

func etagOf(t *testing.T, h http.Handler, p string) string {
	resp, _ := get(t, h, p)
	return resp.Header.Get("ETag")
}

// The headers reach the page as an escaped data attribute: markup in a value cannot break out.
func TestHeadersPrefillTheEditorThroughADataAttribute(t *testing.T) {
	_, page := get(t, handler(t, Options{}), "/")
	if !strings.Contains(page, `data-headers=""`) || !strings.Contains(page, `data-endpoint="/query"`) {
		t.Fatalf("defaults: %s", page)
	}
	hostile := `Bearer x"><script>alert(1)</script>`
	_, page = get(t, handler(t, Options{Headers: map[string]string{"Authorization": hostile}}), "/")
	m := regexp.MustCompile(`data-headers="([^"]*)"`).FindStringSubmatch(page)
	if m == nil || strings.Contains(page, "<script>alert") {
		t.Fatalf("headers not escaped: %s", page)
	}
	if got := html.UnescapeString(m[1]); !strings.Contains(got, `"Authorization": "Bearer x\"\u003e\u003cscript\u003ealert(1)\u003c/script\u003e"`) {
		t.Fatalf("data-headers decodes to %s", got)
	}
}
