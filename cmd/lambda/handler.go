package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"singletable/cmd/internal/settings"
	"singletable/repository/store"
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
	log := slog.New(slog.NewJSONHandler(logw, &slog.HandlerOptions{Level: cfg.LogLevel}))
	tp, _, err := telemetry.SetupTracing(ctx, getenv)
	if err != nil {
		return nil, err
	}
	repo, err := store.New(ctx, cfg.RepositoryConfig(log, tp))
	if err != nil {
		return nil, err
	}
	authn, err := cfg.Auth.Authenticator()
	if err != nil {
		return nil, err
	}
	if cfg.Auth.Disabled {
		log.Warn("AUTH_DISABLED=true: every request is served as admin, without a token; never run this way where others can reach the function")
	}
	if cfg.CursorSecret == "" {
		log.Warn("CURSOR_SECRET is not set: every execution environment uses its own random secret, so cursors fail across invocations served by different ones; set it")
	}
	serverCfg := cfg.ServerConfig(log, authn)
	serverCfg.TracerProvider = tp
	// No page to serve on Lambda: the function answers the API only.
	serverCfg.DisablePlayground = true
	h := &handler{adapter: httpadapter.NewV2(server.New(repo, serverCfg)), log: log}
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

// parseConfig reads the settings cmd/lambda shares with the server from the environment (Lambda
// has no flags, and no listener or admin port of its own: it owns the HTTP side) and refuses
// development tokens, which print an admin token and belong to a developer's machine.
func parseConfig(getenv func(string) string) (settings.Shared, error) {
	var problems settings.Problems
	c := settings.FromEnv(settings.Env{Getenv: getenv, Bad: problems.Add})
	if c.Auth.DevTokens {
		problems.Add("AUTH_DEV_TOKENS: development tokens are for the server binary, not Lambda")
	}
	c.Validate(problems.Add)
	return c, problems.Err()
}
