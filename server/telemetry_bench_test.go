package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"

	"singletable/auth"
	"singletable/repository"
	"singletable/repository/store/storetest"
	"singletable/server"
	"singletable/telemetry"
)

// BenchmarkTelemetryOverhead measures what metrics and tracing add to an operation: the nested
// orgTree query (3 levels, 7 DynamoDB calls) answered with telemetry off (no metrics, no-op
// tracer), with metrics only, and with metrics and every span recorded (an in-memory exporter
// behind a batch processor, as in production). Run it with:
//
//	scripts/with-dynamodb-local.sh go test ./server -run '^$' -bench TelemetryOverhead -benchtime 300x
func BenchmarkTelemetryOverhead(b *testing.B) {
	for _, mode := range []string{"off", "metrics", "metrics+traces"} {
		b.Run(mode, func(b *testing.B) {
			var metrics *telemetry.Metrics
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewInMemoryExporter()))
			defer func() { _ = tp.Shutdown(context.Background()) }()
			cfg := server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), TracerProvider: noop.NewTracerProvider(), Auth: auth.Disabled()}
			repoCfg := func(c *repository.Config) { c.TracerProvider = noop.NewTracerProvider() }
			if mode != "off" {
				metrics = telemetry.NewMetrics()
				cfg.Metrics = metrics
			}
			if mode == "metrics+traces" {
				cfg.TracerProvider = tp
				repoCfg = func(c *repository.Config) { c.TracerProvider = tp; c.Observer = metrics.DynamoDBCall }
			} else if metrics != nil {
				repoCfg = func(c *repository.Config) {
					c.TracerProvider = noop.NewTracerProvider()
					c.Observer = metrics.DynamoDBCall
				}
			}
			repo := storetest.New(b, repoCfg)
			if _, err := repo.Seed(b.Context()); err != nil {
				b.Fatal(err)
			}
			ts := httptest.NewServer(server.New(repo, cfg))
			defer ts.Close()
			body, _ := json.Marshal(map[string]any{"query": orgTree})
			b.ResetTimer()
			for range b.N {
				resp, err := http.Post(ts.URL+"/query", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}
