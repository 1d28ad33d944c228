package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"singletable/auth"
	"singletable/loaders"
	"singletable/repository"
	"singletable/server"
	"singletable/telemetry"
)

// handler answers function URL and HTTP API events with the API's http.Handler.
type handler struct {
	adapter *httpadapter.HandlerAdapterV2
	// flush sends the spans of an invocation before Lambda freezes the environment (nil when
	// tracing is off).
	flush func(context.Context) error
	log   *slog.Logger
}

// newHandler reads the configuration from getenv and builds the repository and the HTTP handler.
func newHandler(ctx context.Context, getenv func(string) string, logw io.Writer) (*handler, error) {
	cfg, err := parseConfig(getenv)
	if err != nil {
		return nil, err
	}
	log := slog.New(slog.NewJSONHandler(logw, &slog.HandlerOptions{Level: cfg.logLevel}))
	tp, _, err := telemetry.SetupTracing(ctx, getenv)
	if err != nil {
		return nil, err
	}
	repo, err := repository.New(ctx, repository.Config{
		Table:             cfg.table,
		Region:            getenv("AWS_REGION"),
		Endpoint:          getenv("AWS_ENDPOINT_URL_DYNAMODB"),
		CursorSecret:      []byte(cfg.cursorSecret),
		OrderStatusShards: cfg.shards,
		Logger:            log,
		TracerProvider:    tp,
	})
	if err != nil {
		return nil, err
	}
	authn, err := cfg.auth.Authenticator()
	if err != nil {
		return nil, err
	}
	if cfg.auth.Disabled {
		log.Warn("AUTH_DISABLED=true: every request is served as admin, without a token; never run this way where others can reach the function")
	}
	if cfg.cursorSecret == "" {
		log.Warn("CURSOR_SECRET is not set: every execution environment uses its own random secret, so cursors fail across invocations served by different ones; set it")
	}
	h := &handler{
		adapter: httpadapter.NewV2(server.New(repo, server.Config{
			Introspection:   cfg.introspection,
			ComplexityLimit: cfg.complexityLimit,
			CORSOrigins:     cfg.corsOrigins,
			Loaders:         loaders.Options{Wait: cfg.loaderWait},
			Logger:          log,
			TracerProvider:  tp,
			Auth:            authn,
			// No page to serve on Lambda: the function answers the API only.
			DisablePlayground: true,
		})),
		log: log,
	}
	if f, ok := tp.(interface{ ForceFlush(context.Context) error }); ok {
		h.flush = f.ForceFlush
	}
	return h, nil
}

// invoke is the Lambda handler function.
func (h *handler) invoke(ctx context.Context, event events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	resp, err := h.adapter.ProxyWithContext(ctx, event)
	if h.flush != nil {
		if ferr := h.flush(ctx); ferr != nil {
			h.log.Warn("tracing: flushing spans", "error", ferr.Error())
		}
	}
	return resp, err
}

// config is the subset of the server's configuration that applies on Lambda (no ports, no
// admin listener: Lambda owns the HTTP side).
type config struct {
	table           string
	cursorSecret    string
	shards          int
	introspection   bool
	complexityLimit int
	loaderWait      time.Duration
	corsOrigins     []string
	logLevel        slog.Level
	// auth is AUTH_*, as on the server (without its flags and development tokens).
	auth auth.Settings
}

func parseConfig(getenv func(string) string) (config, error) {
	var errs []string
	c := config{
		table:           getenv("DYNAMODB_TABLE"),
		cursorSecret:    getenv("CURSOR_SECRET"),
		shards:          repository.DefaultOrderStatusShards,
		introspection:   true,
		complexityLimit: server.DefaultComplexityLimit,
		loaderWait:      loaders.DefaultWait,
	}
	if c.table == "" {
		c.table = "app"
	}
	var problems []string
	c.auth, problems = auth.SettingsFromEnv(getenv)
	errs = append(errs, problems...)
	if c.auth.DevTokens {
		errs = append(errs, "AUTH_DEV_TOKENS: development tokens are for the server binary, not Lambda")
	}
	errs = append(errs, c.auth.Problems()...)
	if v := getenv("ORDER_STATUS_SHARDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			errs = append(errs, fmt.Sprintf("ORDER_STATUS_SHARDS=%q must be a whole number between 1 and 1000", v))
		}
		c.shards = n
	}
	if v := getenv("GRAPHQL_INTROSPECTION"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("GRAPHQL_INTROSPECTION=%q is not true or false", v))
		}
		c.introspection = b
	}
	if v := getenv("GRAPHQL_COMPLEXITY_LIMIT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			errs = append(errs, fmt.Sprintf("GRAPHQL_COMPLEXITY_LIMIT=%q must be a positive whole number", v))
		}
		c.complexityLimit = n
	}
	if v := getenv("DATALOADER_WAIT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > time.Second {
			errs = append(errs, fmt.Sprintf("DATALOADER_WAIT=%q must be a duration between 0 and 1s", v))
		}
		c.loaderWait = d
	}
	if c.cursorSecret != "" && len(c.cursorSecret) < 32 {
		errs = append(errs, "CURSOR_SECRET: must have at least 32 characters")
	}
	if v := getenv("LOG_LEVEL"); v != "" {
		if err := c.logLevel.UnmarshalText([]byte(v)); err != nil {
			errs = append(errs, fmt.Sprintf("LOG_LEVEL=%q must be debug, info, warn or error", v))
		}
	}
	for _, o := range strings.Split(getenv("CORS_ALLOWED_ORIGINS"), ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.corsOrigins = append(c.corsOrigins, o)
		}
	}
	if len(errs) > 0 {
		return c, errors.New("invalid configuration:\n  " + strings.Join(errs, "\n  "))
	}
	return c, nil
}
