package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// adminAddr finds the admin listener's address in the server's log.
func adminAddr(t *testing.T, logs *syncBuffer) string {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == "admin listening" {
			return line["addr"].(string)
		}
	}
	t.Fatalf("no admin listening line in the log:\n%s", logs.String())
	return ""
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// sample returns the value of one series in a Prometheus text exposition (0 when absent).
func sample(exposition, series string) float64 {
	for _, line := range strings.Split(exposition, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, _ := strconv.ParseFloat(rest, 64)
			return v
		}
	}
	return 0
}

func TestAdminPortServesMetricsAndProfiles(t *testing.T) {
	addr, logs, stop, done := start(t, []string{"-create-table", "-seed", "-pprof"}, env(t, nil))
	admin := "http://" + adminAddr(t, logs)
	const queries = `singletable_dynamodb_calls_total{operation="Query"}`

	_, before := get(t, admin+"/metrics")
	body := `{"query":"query Orgs { organizations { edges { node { name } } } }"}`
	resp, err := postAs(t, adminToken(t), "http://"+addr+"/query", body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	code, after := get(t, admin+"/metrics")
	if code != 200 {
		t.Fatalf("admin /metrics: %d", code)
	}
	if got := sample(after, queries) - sample(before, queries); got != 1 {
		t.Errorf("%s moved by %v with one list query, want 1", queries, got)
	}
	if got := sample(after, `singletable_graphql_operation_duration_seconds_count{operation="Orgs",outcome="ok"}`); got != 1 {
		t.Errorf("operation histogram count = %v, want 1", got)
	}
	for _, want := range []string{"go_goroutines", "singletable_dynamodb_consumed_capacity_units_total", "singletable_graphql_operations_in_flight"} {
		if !strings.Contains(after, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if code, page := get(t, admin+"/debug/pprof/"); code != 200 || !strings.Contains(page, "goroutine") {
		t.Errorf("admin /debug/pprof/: %d %.80q", code, page)
	}
	if code, _ := get(t, admin+"/debug/pprof/goroutine?debug=1"); code != 200 {
		t.Errorf("admin goroutine profile: %d", code)
	}
	for _, path := range []string{"/metrics", "/debug/pprof/"} {
		if code, _ := get(t, "http://"+addr+path); code != http.StatusNotFound {
			t.Errorf("public port serves %s: %d", path, code)
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := net.DialTimeout("tcp", adminAddr(t, logs), time.Second); err == nil {
		t.Error("the admin port is still open after shutdown")
	}
}

// The profiler is off unless PPROF=true (or -pprof): the container image binds the admin port on
// every interface. Metrics stay.
func TestProfilerIsOffUnlessAsked(t *testing.T) {
	for _, pprofEnv := range []string{"", "false", "true"} {
		_, logs, _, _ := start(t, []string{"-create-table"}, env(t, map[string]string{"PPROF": pprofEnv}))
		admin := "http://" + adminAddr(t, logs)
		if code, _ := get(t, admin+"/metrics"); code != http.StatusOK {
			t.Errorf("PPROF=%q: /metrics %d", pprofEnv, code)
		}
		want := http.StatusNotFound
		if pprofEnv == "true" {
			want = http.StatusOK
		}
		for _, path := range []string{"/debug/pprof/", "/debug/pprof/goroutine?debug=1", "/debug/pprof/cmdline", "/debug/pprof/symbol"} {
			if code, _ := get(t, admin+path); code != want {
				t.Errorf("PPROF=%q: %s %d, want %d", pprofEnv, path, code, want)
			}
		}
		if on := strings.Contains(logs.String(), `"pprof":"/debug/pprof/"`); on != (want == http.StatusOK) {
			t.Errorf("PPROF=%q: the start log says pprof is served: %v", pprofEnv, on)
		}
	}
}

func TestAdminCanBeTurnedOff(t *testing.T) {
	_, logs, _, _ := start(t, []string{"-create-table"}, env(t, map[string]string{"ADMIN_ADDR": "off"}))
	if strings.Contains(logs.String(), "admin listening") {
		t.Fatal("ADMIN_ADDR=off still opened the admin listener")
	}
}

func TestHealthcheckMode(t *testing.T) {
	getenv := env(t, nil)
	addr, _, _, _ := start(t, []string{"-create-table"}, getenv)
	_, port, _ := net.SplitHostPort(addr)
	withPort := func(k string) string {
		if k == "PORT" {
			return port
		}
		return getenv(k)
	}
	var out strings.Builder
	if err := run(t.Context(), []string{"-healthcheck"}, withPort, &out, nil); err != nil || !strings.Contains(out.String(), "healthy") {
		t.Fatalf("healthcheck of a running server: %v %q", err, out.String())
	}
	// A port nobody listens on.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	_, free, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	err := run(t.Context(), []string{"-healthcheck"}, func(k string) string {
		if k == "PORT" {
			return free
		}
		return getenv(k)
	}, io.Discard, nil)
	if err == nil {
		t.Fatal("healthcheck of a stopped server succeeded")
	}
}

func TestAdminAddrIsValidated(t *testing.T) {
	for _, v := range []string{"9090", "localhost:http-alt", "host:99999"} {
		_, err := parseConfig(nil, func(k string) string { return map[string]string{"ADMIN_ADDR": v}[k] }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "ADMIN_ADDR / -admin-addr") {
			t.Errorf("ADMIN_ADDR=%q: err = %v", v, err)
		}
	}
	cfg, err := parseConfig(nil, func(k string) string { return map[string]string{"AUTH_HS256_SECRET": testSecret}[k] }, io.Discard)
	if err != nil || cfg.ops.adminAddr != DefaultAdminAddr {
		t.Fatalf("default admin address %q, err %v", cfg.ops.adminAddr, err)
	}
}

// With an OTLP endpoint set, the server exports its spans there over HTTP (here an in-process
// receiver that counts the export requests).
func TestSpansAreExportedOverOTLP(t *testing.T) {
	var exports atomic.Int64
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/traces" && r.Header.Get("Content-Type") == "application/x-protobuf" {
			if b, _ := io.ReadAll(r.Body); len(b) > 0 {
				exports.Add(1)
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer receiver.Close()
	// The exporter reads the OTEL_* variables from the process environment itself.
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	getenv := env(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.URL})
	addr, _, stop, done := start(t, []string{"-create-table"}, getenv)
	resp, err := http.Post("http://"+addr+"/query", "application/json", strings.NewReader(`{"query":"{ organizations { edges { cursor } } }"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if exports.Load() == 0 {
		t.Fatal("no spans reached the OTLP receiver")
	}
}

func TestAdminAddrInUseIsAClearError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = run(t.Context(), nil, env(t, map[string]string{"ADMIN_ADDR": ln.Addr().String()}), io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "ADMIN_ADDR "+ln.Addr().String()) {
		t.Fatalf("run with the admin port taken: %v", err)
	}
}
