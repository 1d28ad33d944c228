package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"singletable/repository"
	"singletable/repository/store/storetest"
	"singletable/server"
	"singletable/telemetry"
)

// orgTree is a nested query: organizations, their users, the users' tickets and reporters. It is
// sent without operationName: the server takes the name from the document.
const orgTree = `query OrgTree { organizations(first: 2) { edges { node { name
	users(first: 2) { edges { node { name tickets(first: 2) { edges { node { title reporter { name } } } } } } } } } } }`

// scrape reads the Prometheus text exposition of h into "name{labels}" → value.
func scrape(t *testing.T, h http.Handler) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d", rec.Code)
	}
	series := map[string]float64{}
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("bad sample line %q", line)
		}
		series[line[:i]] = v
	}
	return series
}

func TestMetricsFollowOperations(t *testing.T) {
	metrics := telemetry.NewMetrics()
	repo := storetest.New(t, func(c *repository.Config) { c.Observer = metrics.DynamoDBCall })
	if _, err := repo.Seed(context.Background()); err != nil {
		t.Fatal(err)
	}
	a := newAPIOn(t, repo, server.Config{Metrics: metrics})

	before := scrape(t, metrics.Handler())
	r := a.ok(orgTree, nil, nil)
	after := scrape(t, metrics.Handler())

	for _, op := range []string{"Query", "BatchGetItem"} {
		key := `singletable_dynamodb_calls_total{operation="` + op + `"}`
		if got, want := after[key]-before[key], float64(r.calls(op)); got != want {
			t.Errorf("%s moved by %v, the operation made %v %s calls", key, got, want, op)
		}
	}
	if r.calls("Query") == 0 {
		t.Fatal("the nested query made no Query call")
	}
	capKey := `singletable_dynamodb_consumed_capacity_units_total{operation="Query"}`
	if after[capKey] <= before[capKey] {
		t.Errorf("%s did not grow", capKey)
	}
	if got := after[`singletable_graphql_operation_duration_seconds_count{operation="OrgTree",outcome="ok"}`]; got != 1 {
		t.Errorf("operation histogram count for OrgTree/ok = %v, want 1", got)
	}
	if got := after["singletable_graphql_operations_in_flight"]; got != 0 {
		t.Errorf("in flight after the answer = %v, want 0", got)
	}

	// Employees and their managers: lists of one level batched together, then key lookups.
	a.ok(`{ departments(first: 4) { edges { node { employees(first: 5) { edges { node { name manager { name } } } } } } } }`, nil, nil)
	after = scrape(t, metrics.Handler())
	batches := 0.0
	for _, loader := range []string{"keys", "fetchNow", "relationLists", "level"} {
		batches += after[`singletable_dataloader_batch_size_count{loader="`+loader+`"}`]
	}
	if batches == 0 {
		t.Error("no dataloader batch was recorded")
	}

	// A refused document is counted with its error code as outcome (anonymous: the client sent
	// no operationName, and gqlgen keeps no document that failed validation).
	a.query(`query Broken { organizations(first: 2) { nope } }`, nil)
	after = scrape(t, metrics.Handler())
	if got := after[`singletable_graphql_operation_duration_seconds_count{operation="anonymous",outcome="GRAPHQL_VALIDATION_FAILED"}`]; got != 1 {
		t.Errorf("validation failure count = %v, want 1", got)
	}
}

func TestPublicPortServesNoMetricsOrProfiles(t *testing.T) {
	a := newAPIOn(t, storetest.New(t), server.Config{Metrics: telemetry.NewMetrics()})
	for _, path := range []string{"/metrics", "/debug/pprof/", "/debug/pprof/heap"} {
		resp, err := http.Get(a.url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s on the public port: %d %.80s, want 404", path, resp.StatusCode, body)
		}
	}
}

// logBuffer collects log lines from concurrent handlers.
type logBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines = append(b.lines, string(p))
	return len(p), nil
}

func TestTraceOfNestedQuery(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	repo := storetest.New(t, func(c *repository.Config) { c.TracerProvider = tp })
	if _, err := repo.Seed(context.Background()); err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	a := newAPIOn(t, repo, server.Config{TracerProvider: tp, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	r := a.ok(orgTree, nil, nil)

	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	var ops []sdktrace.ReadOnlySpan
	for _, s := range spans.Ended() {
		byID[s.SpanContext().SpanID()] = s
		if s.Name() == "query OrgTree" {
			ops = append(ops, s)
		}
	}
	if len(ops) != 1 {
		t.Fatalf("want one operation span named %q, got %d", "query OrgTree", len(ops))
	}
	op := ops[0]
	if root, ok := byID[op.Parent().SpanID()]; !ok || root.Name() != "POST /query" {
		t.Errorf("the operation span's parent is not the request span POST /query")
	}
	descends := func(s sdktrace.ReadOnlySpan) bool {
		for p := s.Parent(); p.IsValid(); {
			if p.SpanID() == op.SpanContext().SpanID() {
				return true
			}
			parent, ok := byID[p.SpanID()]
			if !ok {
				return false
			}
			p = parent.Parent()
		}
		return false
	}
	calls := map[string]int{}
	resolvers := 0
	for _, s := range spans.Ended() {
		if s.SpanContext().TraceID() != op.SpanContext().TraceID() {
			continue
		}
		attrs := map[string]string{}
		for _, kv := range s.Attributes() {
			attrs[string(kv.Key)] = kv.Value.String()
		}
		switch {
		case strings.HasPrefix(s.Name(), "DynamoDB."):
			if !descends(s) {
				t.Errorf("DynamoDB span %s is not under the operation span", s.Name())
			}
			if attrs["rpc.service"] != "DynamoDB" || "DynamoDB."+attrs["rpc.method"] != s.Name() || attrs["aws.dynamodb.consumed_capacity"] == "" {
				t.Errorf("DynamoDB span %s has attributes %v", s.Name(), attrs)
			}
			if s.SpanKind() != trace.SpanKindClient {
				t.Errorf("DynamoDB span %s is of kind %v, want client", s.Name(), s.SpanKind())
			}
			calls[attrs["rpc.method"]]++
		case s.Name() == "Organization.users" || s.Name() == "User.tickets":
			resolvers++
		}
	}
	for op, n := range r.Extensions.DynamoDB.Calls {
		if calls[op] != n {
			t.Errorf("%d %s spans, the response counts %d calls", calls[op], op, n)
		}
	}
	if len(calls) == 0 || calls["Query"] == 0 {
		t.Fatalf("no DynamoDB Query span in the trace: %v", calls)
	}
	if resolvers == 0 {
		t.Error("no span for the list resolvers Organization.users / User.tickets")
	}

	// The request log line names the operation (from the document) and the trace.
	found := false
	for _, line := range logs.lines {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || rec["msg"] != "request" {
			continue
		}
		found = true
		if rec["operation"] != "OrgTree" || rec["traceId"] != op.SpanContext().TraceID().String() {
			t.Errorf("request log line has operation %v and trace %v, want OrgTree and %s", rec["operation"], rec["traceId"], op.SpanContext().TraceID())
		}
	}
	if !found {
		t.Fatal("no request log line")
	}
}
