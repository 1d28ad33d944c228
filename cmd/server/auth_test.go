package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"singletable/auth"
)

const testSecret = "cmd-server-tests-hs256-secret-0123456789"

func adminToken(t *testing.T) string {
	t.Helper()
	tok, err := auth.MintHS256([]byte(testSecret), auth.Claims{Subject: "test-admin", Roles: []string{"admin"}}, auth.MintOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// postAs POSTs a JSON body to url with a bearer token ("" for none).
func postAs(t *testing.T, token, url, body string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return http.DefaultClient.Do(req)
}

func TestAuthConfiguration(t *testing.T) {
	cases := []struct {
		env  map[string]string
		args []string
		want string // "" when the configuration is valid
	}{
		{map[string]string{}, nil, "no token verifier: set AUTH_JWKS_URL"},
		{map[string]string{"AUTH_HS256_SECRET": "too-short"}, nil, "AUTH_HS256_SECRET: must have at least 32 bytes"},
		{map[string]string{"AUTH_JWKS_URL": "http://idp.example/jwks"}, nil, "keys must be fetched over https"},
		{map[string]string{"AUTH_JWKS_URL": "idp.example/jwks"}, nil, "is not an http(s) URL"},
		{map[string]string{"AUTH_DISABLED": "sure"}, nil, `AUTH_DISABLED="sure" is not true or false`},
		{map[string]string{"AUTH_JWKS_URL": "https://idp.example/.well-known/jwks.json"}, []string{"-dev-tokens"}, "-dev-tokens: needs AUTH_HS256_SECRET"},
		{map[string]string{"AUTH_JWKS_URL": "https://idp.example/.well-known/jwks.json", "AUTH_ISSUER": "https://idp.example/"}, nil, ""},
		{map[string]string{"AUTH_JWKS_URL": "http://127.0.0.1:9999/jwks"}, nil, ""},
		{map[string]string{"AUTH_DISABLED": "true"}, nil, ""},
		{map[string]string{"AUTH_HS256_SECRET": testSecret, "AUTH_DEV_TOKENS": "true", "HOST": "127.0.0.1"}, nil, ""},
		{map[string]string{"AUTH_HS256_SECRET": testSecret, "AUTH_DEV_TOKENS": "true", "HOST": "localhost"}, nil, ""},
		// Every interface, or another address: the playground would hand the admin token out.
		{map[string]string{"AUTH_HS256_SECRET": testSecret, "AUTH_DEV_TOKENS": "true"}, nil, "-dev-tokens: listen on loopback only"},
		{map[string]string{"AUTH_HS256_SECRET": testSecret, "HOST": "10.0.0.5"}, []string{"-dev-tokens"}, "-dev-tokens: listen on loopback only"},
		{map[string]string{"AUTH_HS256_SECRET": testSecret, "HOST": "0.0.0.0", "AUTH_DEV_TOKENS": "true"}, nil, "set AUTH_DEV_TOKENS_BEHIND_LOOPBACK=true"},
		// A container whose port is published on 127.0.0.1 only: the operator says so.
		{map[string]string{"AUTH_HS256_SECRET": testSecret, "HOST": "0.0.0.0", "AUTH_DEV_TOKENS": "true", "AUTH_DEV_TOKENS_BEHIND_LOOPBACK": "true"}, nil, ""},
		{map[string]string{"AUTH_HS256_SECRET": testSecret}, []string{"-dev-tokens", "-dev-tokens-behind-loopback"}, ""},
		{map[string]string{"AUTH_HS256_SECRET": testSecret, "AUTH_DEV_TOKENS_BEHIND_LOOPBACK": "yes please"}, nil, `AUTH_DEV_TOKENS_BEHIND_LOOPBACK="yes please" is not true or false`},
	}
	for _, c := range cases {
		_, err := parseConfig(c.args, func(k string) string { return c.env[k] }, io.Discard)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("env %v: unexpected error %v", c.env, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("env %v args %v: err = %v, want it to mention %q", c.env, c.args, err, c.want)
		}
	}
	cfg, err := parseConfig([]string{"-auth-issuer", "https://flag/"}, func(k string) string {
		return map[string]string{"AUTH_HS256_SECRET": testSecret, "AUTH_ISSUER": "https://env/"}[k]
	}, io.Discard)
	if err != nil || cfg.Auth.Issuer != "https://flag/" || cfg.Auth.HS256Secret != testSecret {
		t.Fatalf("flags override the environment: %+v %v", cfg.Auth, err)
	}
}

// The HS256 secret may come from a file (surrounding white space dropped: compose's generator and
// container secrets end files with a newline), never from both places.
func TestHS256SecretFromAFile(t *testing.T) {
	dir := t.TempDir()
	file, short := filepath.Join(dir, "secret"), filepath.Join(dir, "short")
	if err := os.WriteFile(file, []byte(testSecret+"\n"), 0o400); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(short, []byte("0123456789"), 0o400); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"AUTH_HS256_SECRET_FILE": file}, ""},
		{map[string]string{"AUTH_HS256_SECRET_FILE": file, "AUTH_HS256_SECRET": testSecret}, "set one of them, not both"},
		{map[string]string{"AUTH_HS256_SECRET_FILE": filepath.Join(dir, "missing")}, "AUTH_HS256_SECRET_FILE: open"},
		{map[string]string{"AUTH_HS256_SECRET_FILE": short}, "AUTH_HS256_SECRET: must have at least 32 bytes"},
	} {
		cfg, err := parseConfig(nil, func(k string) string { return c.env[k] }, io.Discard)
		switch {
		case c.want == "" && (err != nil || cfg.Auth.HS256Secret != testSecret):
			t.Errorf("env %v: secret %q, error %v", c.env, cfg.Auth.HS256Secret, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("env %v: err = %v, want it to mention %q", c.env, err, c.want)
		}
	}
}

// An anonymous caller gets nothing but the probes and the playground page.
func TestAnonymousCallerIsRefused(t *testing.T) {
	getenv := env(t, nil)
	addr, _, _, _ := start(t, []string{"-create-table", "-seed"}, getenv)
	resp, err := postAs(t, "", "http://"+addr+"/query", `{"query":"{ organizations { edges { node { name } } } }"}`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != "Bearer" ||
		!strings.Contains(string(b), `"UNAUTHENTICATED"`) || strings.Contains(string(b), `"data"`) || strings.Contains(string(b), "Acme") {
		t.Fatalf("anonymous /query: %d %v %s", resp.StatusCode, resp.Header, b)
	}
}

// With AUTH_DISABLED=true every request is an admin's, and the server says so at start.
func TestAuthDisabledServesEveryoneAsAdminWithAWarning(t *testing.T) {
	getenv := env(t, map[string]string{"AUTH_HS256_SECRET": "", "AUTH_DISABLED": "true"})
	addr, logs, _, _ := start(t, []string{"-create-table", "-seed"}, getenv)
	resp, err := postAs(t, "", "http://"+addr+"/query", `{"query":"{ organizations { edges { node { name } } } }"}`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "Acme Corporation") {
		t.Fatalf("AUTH_DISABLED: %d %s", resp.StatusCode, b)
	}
	if !strings.Contains(logs.String(), `"level":"WARN","msg":"AUTH_DISABLED=true`) {
		t.Fatalf("no warning at start:\n%s", logs.String())
	}
}

// -dev-tokens prints a working token for each sample principal, each seeing its own scope, and
// the playground's headers editor holds the admin's; requests addressed to another Host are
// refused.
func TestDevTokensArePrintedAndWork(t *testing.T) {
	getenv := env(t, nil)
	addr, logs, _, _ := start(t, []string{"-create-table", "-seed", "-dev-tokens"}, getenv)
	out := logs.String()
	tokens := map[string]string{}
	re := regexp.MustCompile(`(?m)^  (admin|org-member of [^:]+|hr|sales|customer [^:]+):\n    (\S+)$`)
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		tokens[strings.Fields(m[1])[0]] = m[2]
	}
	if len(tokens) != 5 || !strings.Contains(out, "curl -s http://") {
		t.Fatalf("want 5 tokens and a curl example, got %v in:\n%s", tokens, out)
	}
	query := func(role, q string) map[string]any {
		t.Helper()
		body, _ := json.Marshal(map[string]string{"query": q})
		resp, err := postAs(t, tokens[role], "http://"+addr+"/query", string(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", role, resp.StatusCode, err)
		}
		return r
	}
	orgs := func(r map[string]any) int {
		return len(r["data"].(map[string]any)["organizations"].(map[string]any)["edges"].([]any))
	}
	all := orgs(query("admin", `{ organizations { edges { node { name } } } }`))
	if own := orgs(query("org-member", `{ organizations { edges { node { name } } } }`)); all < 2 || own != 1 {
		t.Fatalf("admin sees %d organizations, the org-member %d", all, own)
	}
	for role, q := range map[string]string{"hr": `{ departments { edges { node { name } } } }`, "sales": `{ customers { edges { node { name } } } }`, "customer": `{ customers { edges { node { name } } } }`} {
		if r := query(role, q); r["errors"] != nil {
			t.Errorf("%s: %v", role, r["errors"])
		}
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), tokens["admin"]) {
		t.Fatal("the playground page does not hold the admin token")
	}
	refusesRebinding(t, addr, tokens["admin"])
}

// refusesRebinding checks that a page on rebind.attacker.example that resolved its name to
// 127.0.0.1 gets 421 from the server at addr, not the page with the admin's token, and cannot
// call /query either.
func refusesRebinding(t *testing.T, addr, adminToken string) {
	t.Helper()
	for _, path := range []string{"/", "/query", "/healthz"} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
		req.Host = "rebind.attacker.example:8080"
		req.Header.Set("Authorization", "Bearer "+adminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMisdirectedRequest || strings.Contains(string(body), adminToken) {
			t.Fatalf("GET %s with Host rebind.attacker.example:8080: %d %s", path, resp.StatusCode, body)
		}
	}
}
