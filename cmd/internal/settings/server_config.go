package settings

import (
	"log/slog"

	"singletable/auth"
	"singletable/loaders"
	"singletable/server"
)

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
