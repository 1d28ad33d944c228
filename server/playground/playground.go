// Package playground serves GraphiQL from files embedded in the binary: React, ReactDOM and
// GraphiQL at pinned versions (fetched and checked by scripts/playground-assets.sh), plus a page
// and a start-up script of our own. The page asks no other host for anything, so the playground
// works offline and behind proxies that block CDNs, and it runs no inline script, so its
// Content-Security-Policy can allow nothing but its own origin.
package playground

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// AssetPrefix is the path the page's scripts and styles are served under.
const AssetPrefix = "/playground/"

// ContentSecurityPolicy is sent with the page and its files. Everything comes from the page's own
// origin; the data: sources are the fonts and icons GraphiQL's stylesheet carries inline (they
// fetch nothing); no inline script runs; no other site may frame the page.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

//go:embed assets/*.js assets/*.css assets/*.LICENSE assets/SHA256SUMS static
var files embed.FS

// Options configures the page.
type Options struct {
	// Title of the browser tab.
	Title string
	// Endpoint is the GraphQL URL the playground sends operations to, usually "/query".
	Endpoint string
	// Headers prefill GraphiQL's headers editor (an Authorization header, say).
	Headers map[string]string
}

type asset struct {
	body []byte
	etag string
	mime string
}

// Handler serves the page on any path it is mounted at (the server mounts it at "/") and its
// files under AssetPrefix. It fails only if the embedded files are broken, which the package's
// tests rule out.
func Handler(opts Options) (http.Handler, error) {
	assets, sri, err := loadAssets()
	if err != nil {
		return nil, err
	}
	page, err := renderPage(opts, sri)
	if err != nil {
		return nil, err
	}
	pageETag := etag(page)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		// Revalidated on every load (cheap with the ETag), so an upgraded binary is never
		// mixed with files cached from the previous one.
		h.Set("Cache-Control", "no-cache")
		if name, ok := strings.CutPrefix(r.URL.Path, AssetPrefix); ok {
			a, found := assets[name]
			if !found {
				http.NotFound(w, r)
				return
			}
			h.Set("Content-Type", a.mime)
			h.Set("ETag", a.etag)
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
			return
		}
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("ETag", pageETag)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(page))
	}), nil
}

// loadAssets reads the embedded files the page links to and computes their Subresource
// Integrity values.
func loadAssets() (map[string]asset, map[string]string, error) {
	assets := map[string]asset{}
	sri := map[string]string{}
	for _, dir := range []string{"assets", "static"} {
		entries, err := fs.ReadDir(files, dir)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range entries {
			mime := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}[path.Ext(e.Name())]
			if mime == "" {
				continue
			}
			b, err := files.ReadFile(dir + "/" + e.Name())
			if err != nil {
				return nil, nil, err
			}
			sum := sha512.Sum384(b)
			sri[e.Name()] = "sha384-" + base64.StdEncoding.EncodeToString(sum[:])
			assets[e.Name()] = asset{body: b, etag: etag(b), mime: mime}
		}
	}
	return assets, sri, nil
}

func renderPage(opts Options, sri map[string]string) ([]byte, error) {
	tmpl, err := template.New("index.html").Option("missingkey=error").ParseFS(files, "static/index.html")
	if err != nil {
		return nil, err
	}
	if opts.Title == "" {
		opts.Title = "GraphQL playground"
	}
	if opts.Endpoint == "" {
		opts.Endpoint = "/query"
	}
	headers := ""
	if len(opts.Headers) > 0 {
		b, err := json.MarshalIndent(opts.Headers, "", "  ")
		if err != nil {
			return nil, err
		}
		headers = string(b)
	}
	var buf bytes.Buffer
	err = tmpl.Execute(&buf, map[string]any{
		"Title": opts.Title, "Endpoint": opts.Endpoint, "Headers": headers,
		"Prefix": AssetPrefix, "SRI": sri,
	})
	return buf.Bytes(), err
}

func etag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}
