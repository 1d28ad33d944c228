package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/store"
)

// env returns a getenv for a fresh table on DynamoDB Local; the table is deleted when the test
// ends.
func env(t *testing.T, extra map[string]string) func(string) string {
	vars := map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB": repotest.Endpoint(t),
		"AWS_REGION":                "us-east-1",
		"DYNAMODB_TABLE":            repotest.TableName(t),
		"CURSOR_SECRET":             repotest.CursorSecret,
		"AUTH_HS256_SECRET":         testSecret,
		"PORT":                      "0",
		"ADMIN_ADDR":                "127.0.0.1:0",
		"HOST":                      "127.0.0.1",
	}
	for k, v := range extra {
		vars[k] = v
	}
	t.Cleanup(func() {
		r, err := store.New(context.Background(), repository.Config{Table: vars["DYNAMODB_TABLE"], Region: "us-east-1", Endpoint: vars["AWS_ENDPOINT_URL_DYNAMODB"]})
		if err == nil {
			_ = r.DeleteTable(context.Background())
		}
	})
	return func(k string) string { return vars[k] }
}

// syncBuffer collects the server's log lines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// start runs the real server (run, as main does) on a free port and returns its address, its
// log, a function that stops it as SIGTERM would, and the channel run's result arrives on.
func start(t *testing.T, args []string, getenv func(string) string) (addr string, logs *syncBuffer, stop func(), done chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs = &syncBuffer{}
	addrCh := make(chan string, 1)
	done = make(chan error, 1)
	go func() { done <- run(ctx, args, getenv, logs, func(a string) { addrCh <- a }) }()
	select {
	case addr = <-addrCh:
	case err := <-done:
		cancel()
		t.Fatalf("run: %v\n%s", err, logs.String())
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatal("server did not start")
	}
	t.Cleanup(cancel)
	if h, p, err := net.SplitHostPort(addr); err == nil && (h == "::" || h == "0.0.0.0" || h == "") {
		addr = net.JoinHostPort("127.0.0.1", p)
	}
	return addr, logs, cancel, done
}

func TestServerStartsCreatesSeedsAndServes(t *testing.T) {
	getenv := env(t, nil)
	addr, logs, stop, done := start(t, []string{"-create-table", "-seed"}, getenv)
	for path, want := range map[string]string{"/healthz": "ok", "/readyz": "ready", "/": "graphiql"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Fatalf("GET %s = %d %.80q", path, resp.StatusCode, b)
		}
	}
	body := `{"operationName":"Orgs","query":"query Orgs { organizations { edges { node { name } } } }"}`
	resp, err := postAs(t, adminToken(t), "http://"+addr+"/query", body)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "Acme Corporation") {
		t.Fatalf("the sample data is not served: %s", b)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("run returned %v after SIGTERM", err)
	}
	// One JSON log line per request, with the operation name and its DynamoDB calls.
	var found bool
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line is not JSON: %s", sc.Text())
		}
		if line["msg"] == "request" && line["operation"] == "Orgs" {
			found = true
			if line["dynamodbCalls"].(float64) != 1 || line["status"].(float64) != 200 || line["durationMs"] == nil {
				t.Fatalf("request log line: %v", line)
			}
		}
	}
	if !found {
		t.Fatalf("no request log line for the operation:\n%s", logs.String())
	}
}

// SIGTERM lets a request that is in flight finish: here a request whose body is still arriving
// when the shutdown begins.
func TestGracefulShutdownFinishesInFlightRequests(t *testing.T) {
	getenv := env(t, nil)
	addr, _, stop, done := start(t, []string{"-create-table"}, getenv)
	conn, rest := halfRequest(t, addr)
	stop()
	select {
	case err := <-done:
		t.Fatalf("run returned (%v) while a request was in flight", err)
	case <-time.After(200 * time.Millisecond):
	}
	finishHalfRequest(t, conn, rest, done)
}

func TestConfigIsValidatedWithClearMessages(t *testing.T) {
	cases := []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"PORT": "eighty"}, nil, `PORT="eighty" is not a whole number`},
		{map[string]string{"PORT": "70000"}, nil, "PORT / -port: 70000 is out of range"},
		{map[string]string{"ORDER_STATUS_SHARDS": "0"}, nil, "ORDER_STATUS_SHARDS / -order-status-shards: 0 must be between 1 and 1000"},
		{map[string]string{"CURSOR_SECRET": "short"}, nil, "CURSOR_SECRET: must have at least 32 characters"},
		{map[string]string{"DYNAMODB_TABLE": "a"}, nil, `DYNAMODB_TABLE / -table: "a" must be 3 to 255`},
		{map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": "localhost:8000"}, nil, "AWS_ENDPOINT_URL_DYNAMODB / -endpoint: \"localhost:8000\" is not an http(s) URL"},
		{map[string]string{"GRAPHQL_INTROSPECTION": "maybe"}, nil, `GRAPHQL_INTROSPECTION="maybe" is not true or false`},
		{map[string]string{"DATALOADER_WAIT": "5"}, nil, "DATALOADER_WAIT"},
		{map[string]string{"DATALOADER_WAIT": "2s"}, nil, "DATALOADER_WAIT / -loader-wait: 2s must be between 0 and 1s"},
		{nil, []string{"-complexity-limit", "0"}, "GRAPHQL_COMPLEXITY_LIMIT / -complexity-limit: 0 must be positive"},
		{map[string]string{"SHUTDOWN_TIMEOUT": "-1s"}, nil, "SHUTDOWN_TIMEOUT / -shutdown-timeout: -1s must be positive"},
		{nil, []string{"-log-level", "loud"}, `LOG_LEVEL / -log-level: "loud"`},
		{nil, []string{"stray"}, `unexpected argument "stray"`},
		{map[string]string{"REDIS_URL": "http://cache:6379"}, nil, "REDIS_URL / -redis-url: not a redis:// or rediss:// URL"},
		{map[string]string{"PORT": "-1", "ORDER_STATUS_SHARDS": "x"}, nil, "PORT / -port: -1 is out of range"},
	}
	for _, c := range cases {
		vars := map[string]string{"CURSOR_SECRET": repotest.CursorSecret, "AUTH_HS256_SECRET": testSecret}
		for k, v := range c.env {
			vars[k] = v
		}
		_, err := parseConfig(c.args, func(k string) string { return vars[k] }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("env %v args %v: err = %v, want it to mention %q", c.env, c.args, err, c.want)
		}
	}
	// Flags override the environment.
	cfg, err := parseConfig([]string{"-port", "9090", "-table", "flagged"}, func(k string) string {
		return map[string]string{"PORT": "8081", "DYNAMODB_TABLE": "fromenv", "AUTH_HS256_SECRET": testSecret}[k]
	}, io.Discard)
	if err != nil || cfg.port != 9090 || cfg.Table != "flagged" || !cfg.Introspection {
		t.Fatalf("cfg %+v, err %v", cfg, err)
	}
}

// -recount after -seed finds nothing to repair: the sample data carries exact counters. It logs
// how many parents it counted, before the server serves.
func TestRecountAfterSeedRepairsNothing(t *testing.T) {
	_, logs, stop, done := start(t, []string{"-create-table", "-seed", "-recount", "-recount-settle", "10ms"}, env(t, nil))
	stop()
	if err := <-done; err != nil {
		t.Fatalf("run returned %v", err)
	}
	var recounted map[string]any
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err == nil && line["msg"] == "recounted" {
			recounted = line
		}
		if strings.Contains(sc.Text(), "recount repaired") {
			t.Errorf("the sample data needed a repair: %s", sc.Text())
		}
	}
	if recounted == nil || recounted["repaired"] != float64(0) || recounted["parents"].(float64) < 10 {
		t.Fatalf("recount log line %v\n%s", recounted, logs.String())
	}
}
