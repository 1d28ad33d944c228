package telemetry

import (
	"fmt"
	"testing"
)

func TestLabelSetBoundsOperationNames(t *testing.T) {
	s := newLabelSet(3)
	for _, tc := range []struct{ in, want string }{
		{"", AnonymousOperation},
		{"A", "A"},
		{"B_2", "B_2"},
		{"A", "A"},
		{"9lives", OtherOperation},
		{"has space", OtherOperation},
		{"C", "C"},
		{"D", OtherOperation}, // the set is full
		{"B_2", "B_2"},        // names admitted earlier keep their label
	} {
		if got := s.label(tc.in); got != tc.want {
			t.Errorf("label(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIsGraphQLName(t *testing.T) {
	long := fmt.Sprintf("%065d", 0)
	for in, want := range map[string]bool{"Op": true, "_x1": true, "": false, "1x": false, "a-b": false, "é": false, "a" + long: false} {
		if got := isGraphQLName(in); got != want {
			t.Errorf("isGraphQLName(%q) = %v, want %v", in, got, want)
		}
	}
}

func FuzzLabelNeverUnbounded(f *testing.F) {
	f.Add("Op")
	f.Add("")
	f.Add("\xff")
	f.Fuzz(func(t *testing.T, name string) {
		s := newLabelSet(1)
		s.label("First")
		got := s.label(name)
		if got != "First" && got != AnonymousOperation && got != OtherOperation {
			t.Fatalf("label(%q) = %q: a new label past the bound", name, got)
		}
	})
}

func TestNilMetricsIsANoOp(t *testing.T) {
	var m *Metrics
	m.OperationStarted()
	m.OperationFinished("x", "ok", 0)
	m.DynamoDBCall("Query", 1, 0, false)
	m.LoaderBatch("keys", 3)
	m.RateLimited("rate")
}

func TestTracingEnabledFollowsOTELVariables(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		on, err bool
	}{
		{env: map[string]string{}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, on: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, on: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "zipkin"}, err: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, err: true},
	} {
		on, err := TracingEnabled(func(k string) string { return tc.env[k] })
		if on != tc.on || (err != nil) != tc.err {
			t.Errorf("%v: on=%v err=%v, want on=%v err=%v", tc.env, on, err, tc.on, tc.err)
		}
	}
}
