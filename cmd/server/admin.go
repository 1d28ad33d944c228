package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/trace"

	"singletable/cmd/internal/settings"
	"singletable/telemetry"
)

// DefaultAdminAddr is where /metrics (and, with PPROF=true, /debug/pprof/) are served when
// ADMIN_ADDR is unset: the loopback interface only, since profiles and metrics are not for the
// public.
const DefaultAdminAddr = "127.0.0.1:9090"

// opsConfig is the operations part of the configuration: the admin listener and the health-check
// mode of the container image.
type opsConfig struct {
	// adminAddr is host:port of the admin listener, or "off".
	adminAddr string
	// pprof serves Go's profiler on the admin listener (PPROF=true). Off by default: the
	// container image binds the admin port on every interface, and a profile shows the
	// program's internals (the command line included) and costs CPU while it runs.
	pprof bool
	// healthcheck makes the binary GET its own /healthz and exit (the Docker HEALTHCHECK:
	// distroless images have no curl).
	healthcheck bool
}

// opsFlags declares the flags of opsConfig; validate checks them after parsing.
func opsFlags(fs *flag.FlagSet, c *opsConfig, env settings.Env) (validate func(bad func(string, ...any))) {
	fs.StringVar(&c.adminAddr, "admin-addr", env.String("ADMIN_ADDR", DefaultAdminAddr), "host:port of the admin listener serving /metrics (and /debug/pprof/ with -pprof), or off (env ADMIN_ADDR)")
	fs.BoolVar(&c.pprof, "pprof", env.Bool("PPROF", false), "serve Go's profiler at /debug/pprof/ on the admin listener (env PPROF)")
	fs.BoolVar(&c.healthcheck, "healthcheck", false, "GET this server's /healthz on PORT and exit 0 if it answers 200 (the container's health check)")
	return func(bad func(string, ...any)) {
		if c.adminAddr == "off" {
			return
		}
		if _, port, err := net.SplitHostPort(c.adminAddr); err != nil {
			bad("ADMIN_ADDR / -admin-addr: %q is not host:port (or off)", c.adminAddr)
		} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			bad("ADMIN_ADDR / -admin-addr: %q has no valid port", c.adminAddr)
		}
	}
}

// adminHandler serves the Prometheus metrics and, when withProfiler, Go's profiler (otherwise
// /debug/pprof/ is 404). It is never mounted on the public port.
func adminHandler(m *telemetry.Metrics, withProfiler bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	if !withProfiler {
		return mux
	}
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// observability is what startObservability set up: metrics, the tracer provider, and the admin
// listener; shutdown stops the listener and flushes the spans still queued (within 5 s).
type observability struct {
	metrics  *telemetry.Metrics
	tracer   trace.TracerProvider
	shutdown func()
}

// startObservability sets up tracing from the OTEL_* variables and serves the admin endpoints
// on cfg.adminAddr (unless off); the log says where ("admin listening") and whether the profiler
// is among them.
func startObservability(ctx context.Context, cfg opsConfig, getenv func(string) string, log *slog.Logger) (*observability, error) {
	tp, flush, err := telemetry.SetupTracing(ctx, getenv)
	if err != nil {
		return nil, err
	}
	if on, _ := telemetry.TracingEnabled(getenv); on {
		log.Info("tracing: exporting spans over OTLP/HTTP")
	}
	o := &observability{metrics: telemetry.NewMetrics(), tracer: tp}
	var admin *http.Server
	if cfg.adminAddr != "off" {
		ln, err := net.Listen("tcp", cfg.adminAddr)
		if err != nil {
			_ = flush(ctx)
			return nil, fmt.Errorf("ADMIN_ADDR %s: %w", cfg.adminAddr, err)
		}
		admin = &http.Server{Handler: adminHandler(o.metrics, cfg.pprof), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := admin.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("admin listener stopped", "error", err.Error())
			}
		}()
		attrs := []any{"addr", ln.Addr().String(), "metrics", "/metrics"}
		if cfg.pprof {
			attrs = append(attrs, "pprof", "/debug/pprof/")
		}
		log.Info("admin listening", attrs...)
	}
	o.shutdown = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if admin != nil {
			_ = admin.Shutdown(ctx)
		}
		if err := flush(ctx); err != nil {
			log.Warn("tracing: flushing spans", "error", err.Error())
		}
	}
	return o, nil
}

// healthcheck GETs /healthz of the server listening on port of this host (the listen address
// if it names one interface, else the loopback) and fails unless it answers 200.
func healthcheck(host string, port int, out io.Writer) error {
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	client := &http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get("http://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/healthz")
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: /healthz answered %d", resp.StatusCode)
	}
	fmt.Fprintln(out, "healthy")
	return nil
}
