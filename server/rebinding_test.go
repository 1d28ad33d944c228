package server_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"singletable/server"
)

// hostRequest sends method path to the server at base with the given Host header (and the admin's
// token), and returns the status and body.
func hostRequest(t *testing.T, base, method, path, host string) (int, string) {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(`{"query":"{ __typename }"}`)
	}
	req, err := http.NewRequest(method, base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+adminToken(t))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestDevServerAnswersOnlyLoopbackHosts: with LoopbackHostOnly (development tokens on), every
// route of the public listener refuses a request addressed to any other name with 421 and
// FORBIDDEN, and the playground's token never leaves in the answer: a page that rebinds its own
// domain to 127.0.0.1 reads nothing. Loopback names and addresses are served as before, and with
// the check off any Host is.
func TestDevServerAnswersOnlyLoopbackHosts(t *testing.T) {
	const devToken = "Bearer dev-admin-token-of-this-machine"
	dev := newAPI(t, server.Config{LoopbackHostOnly: true, PlaygroundHeaders: map[string]string{"Authorization": devToken}})
	routes := [][2]string{{"GET", "/"}, {"GET", "/playground/playground.js"}, {"POST", "/query"}, {"GET", "/query?query=%7B__typename%7D"},
		{"OPTIONS", "/query"}, {"GET", "/healthz"}, {"GET", "/readyz"}}
	for _, host := range []string{"rebind.attacker.example:8080", "rebind.attacker.example", "localhost.attacker.example:8080", "192.168.1.10:8080", "[fe80::1]:8080"} {
		for _, rt := range routes {
			status, body := hostRequest(t, dev.url, rt[0], rt[1], host)
			if status != http.StatusMisdirectedRequest || !strings.Contains(body, `"code":"FORBIDDEN"`) || strings.Contains(body, "dev-admin-token") {
				t.Errorf("Host %s, %s %s: %d %s", host, rt[0], rt[1], status, body)
			}
		}
	}
	for _, host := range []string{"localhost:8080", "localhost", "app.localhost:8080", "127.0.0.1:8080", "127.0.0.2", "[::1]:8080"} {
		for _, rt := range routes {
			if rt[0] == "OPTIONS" {
				continue
			}
			if status, body := hostRequest(t, dev.url, rt[0], rt[1], host); status != http.StatusOK {
				t.Errorf("Host %s, %s %s: %d %s", host, rt[0], rt[1], status, body)
			}
		}
	}
	if _, page := hostRequest(t, dev.url, "GET", "/", "localhost:8080"); !strings.Contains(page, "dev-admin-token-of-this-machine") {
		t.Error("the playground served to localhost lacks its token")
	}
	// An HTTP/1.0 request may carry no Host at all: not a loopback name either.
	u, _ := url.Parse(dev.url)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET / HTTP/1.0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("no Host: %d", resp.StatusCode)
	}

	// Without development tokens the Host is nobody's business, as before.
	plain := newAPIOn(t, dev.repo, server.Config{})
	for _, rt := range routes {
		if rt[0] == "OPTIONS" {
			continue
		}
		if status, body := hostRequest(t, plain.url, rt[0], rt[1], "api.example.com"); status != http.StatusOK {
			t.Errorf("check off, %s %s: %d %s", rt[0], rt[1], status, body)
		}
	}
}
