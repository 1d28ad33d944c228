package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// startForcible is start with a second-signal context: cancelling drain is the first SIGTERM,
// cancelling force the second.
func startForcible(t *testing.T, args []string, getenv func(string) string) (addr string, drain, force context.CancelFunc, done chan error) {
	t.Helper()
	forceCtx, force := context.WithCancel(context.Background())
	ctx, drain := context.WithCancel(withForce(context.Background(), forceCtx))
	t.Cleanup(force)
	t.Cleanup(drain)
	addrCh := make(chan string, 1)
	done = make(chan error, 1)
	logs := &syncBuffer{}
	go func() { done <- run(ctx, args, getenv, logs, func(a string) { addrCh <- a }) }()
	select {
	case addr = <-addrCh:
	case err := <-done:
		t.Fatalf("run: %v\n%s", err, logs.String())
	case <-time.After(60 * time.Second):
		t.Fatal("server did not start")
	}
	_, port, _ := net.SplitHostPort(addr)
	return net.JoinHostPort("127.0.0.1", port), drain, force, done
}

// halfRequest opens a connection and sends a /query request whose body stops halfway: the server
// holds it in flight until the rest arrives.
func halfRequest(t *testing.T, addr string) (conn net.Conn, rest string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	body := `{"query":"{ organizations { edges { cursor } } }"}`
	fmt.Fprintf(conn, "POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s", adminToken(t), len(body), body[:10])
	time.Sleep(100 * time.Millisecond) // the server has read the headers: the request is in flight
	return conn, body[10:]
}

// finishHalfRequest sends the rest of a halfRequest, requires its answer to be the data, and then
// requires run to return without error: the server stops once its last request is done.
func finishHalfRequest(t *testing.T, conn net.Conn, rest string, done <-chan error) {
	t.Helper()
	fmt.Fprint(conn, rest)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"organizations"`) {
		t.Fatalf("in-flight request: %d %s", resp.StatusCode, b)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop after the last request finished")
	}
}

func status(t *testing.T, url string) (int, string) {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// On the first SIGTERM /readyz answers 503 at once, while a request in flight finishes and the
// server keeps listening for it; then the server stops and its port closes.
func TestSIGTERMTurnsReadinessOffWhileRequestsDrain(t *testing.T) {
	addr, drain, _, done := startForcible(t, []string{"-create-table"}, env(t, nil))
	if code, body := status(t, "http://"+addr+"/readyz"); code != 200 {
		t.Fatalf("/readyz before SIGTERM: %d %s", code, body)
	}
	conn, rest := halfRequest(t, addr)
	drain()
	deadline := time.Now().Add(2 * time.Second)
	for {
		code, body := status(t, "http://"+addr+"/readyz")
		if code == http.StatusServiceUnavailable && strings.Contains(body, "shutting down") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz during the drain: %d %s, want 503", code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, _ := status(t, "http://"+addr+"/healthz"); code != 200 {
		t.Fatalf("/healthz during the drain: %d, want 200 (the process is alive)", code)
	}
	select {
	case err := <-done:
		t.Fatalf("run returned (%v) while a request was in flight", err)
	default:
	}
	finishHalfRequest(t, conn, rest, done)
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatal("the port still accepts connections after run returned")
	}
}

// A second signal ends the process at once, however long the drain would still take.
func TestSecondSignalStopsAtOnce(t *testing.T) {
	addr, drain, force, done := startForcible(t, nil, env(t, map[string]string{"SHUTDOWN_TIMEOUT": "2m"}))
	conn, _ := halfRequest(t, addr)
	drain()
	select {
	case err := <-done:
		t.Fatalf("run returned (%v) on the first signal while a request was in flight", err)
	case <-time.After(300 * time.Millisecond):
	}
	force()
	select {
	case err := <-done:
		if !errors.Is(err, errForced) {
			t.Fatalf("run after the second signal: %v, want errForced", err)
		}
	case <-time.After(5 * time.Second): // generous: it takes milliseconds
		t.Fatal("the second signal did not stop the server")
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); err == nil || errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		t.Fatalf("the in-flight connection was not closed: %v", err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func TestShutdownSettingsAreValidated(t *testing.T) {
	for _, c := range []struct{ delay, timeout, want string }{
		{"-1s", "", "SHUTDOWN_DELAY / -shutdown-delay: -1s must be at least 0"},
		{"30s", "20s", "less than SHUTDOWN_TIMEOUT (20s)"},
		{"soon", "", `SHUTDOWN_DELAY="soon"`},
	} {
		vars := map[string]string{"SHUTDOWN_DELAY": c.delay, "SHUTDOWN_TIMEOUT": c.timeout, "AUTH_HS256_SECRET": testSecret}
		_, err := parseConfig(nil, func(k string) string { return vars[k] }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SHUTDOWN_DELAY=%s SHUTDOWN_TIMEOUT=%s: %v, want %q", c.delay, c.timeout, err, c.want)
		}
	}
	withSecret := func(vars map[string]string) func(string) string {
		return func(k string) string {
			if k == "AUTH_HS256_SECRET" {
				return testSecret
			}
			return vars[k]
		}
	}
	cfg, err := parseConfig([]string{"-shutdown-delay", "5s"}, withSecret(nil), io.Discard)
	if err != nil || cfg.shutdownDelay != 5*time.Second || !cfg.playground {
		t.Fatalf("cfg %+v, err %v", cfg, err)
	}
	cfg, err = parseConfig(nil, withSecret(map[string]string{"PLAYGROUND": "false"}), io.Discard)
	if err != nil || cfg.playground {
		t.Fatalf("PLAYGROUND=false: playground %v, err %v", cfg.playground, err)
	}
}
