package settings

import (
	"log/slog"

	"go.opentelemetry.io/otel/trace"

	"singletable/auth"
	"singletable/loaders"
	"singletable/repository"
	"singletable/server"
)

// RepositoryConfig is the table configuration both binaries start from: the shared settings
// (table, region, endpoint, cursor secret, shards, change retention), the logger and the tracer
// provider. Each binary adds what only it has.
func (s *Shared) RepositoryConfig(log *slog.Logger, tp trace.TracerProvider) repository.Config {
	return repository.Config{
		Table:             s.Table,
		Region:            s.Region,
		Endpoint:          s.Endpoint,
		CursorSecret:      []byte(s.CursorSecret),
		OrderStatusShards: s.OrderStatusShards,
		ChangeRetention:   s.ChangeRetention,
		Logger:            log,
		TracerProvider:    tp,
	}
}

// ServerConfig is the handler configuration both binaries start from: the shared settings
// (GraphQL, loaders, CORS, trusted documents), the logger and the authenticator. Each binary
// adds what only it has.
func (s *Shared) ServerConfig(log *slog.Logger, authn auth.Authenticator) server.Config {
	c := server.Config{
		Introspection:   s.Introspection,
		ComplexityLimit: s.ComplexityLimit,
		CORSOrigins:     s.CORSOrigins,
		Loaders:         loaders.Options{Wait: s.LoaderWait},
		Logger:          log,
		Auth:            authn,
	}
	s.Trusted.Apply(&c)
	return c
}
