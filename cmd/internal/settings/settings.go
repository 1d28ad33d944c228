// Package settings defines, reads and validates the configuration that the two binaries serving
// the API share: cmd/server, where a flag overrides each environment variable, and cmd/lambda,
// which reads the environment only. One definition gives each setting one name, one default and
// one rule on both, so a deployment moved between a container and Lambda keeps its meaning. What
// only one binary has stays there: the server's listener, limits, shutdown and admin port; the
// Lambda's refusal of development tokens.
//
// It lives under cmd/internal because configuring a binary is the binaries' business alone: Go
// lets only the commands import it, so no layer below them (server, loaders, repository, auth)
// can come to depend on it, while it may name their defaults and validation.
package settings

import (
	"flag"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"singletable/auth"
	"singletable/loaders"
	"singletable/repository"
	"singletable/server"
)

// DefaultTable is the table's name when DYNAMODB_TABLE is unset.
const DefaultTable = "app"

// Shared holds the settings of both binaries. Secrets (CURSOR_SECRET, AUTH_HS256_SECRET) come from
// the environment only, so that they do not show in process listings.
type Shared struct {
	Table    string // DYNAMODB_TABLE, -table
	Region   string // AWS_REGION, -region; empty: the SDK's default
	Endpoint string // AWS_ENDPOINT_URL_DYNAMODB, -endpoint; empty: AWS itself
	// CursorSecret keys the cursor seal (CURSOR_SECRET); empty: a random key per process.
	CursorSecret      string
	OrderStatusShards int              // ORDER_STATUS_SHARDS, -order-status-shards
	ChangeRetention   time.Duration    // CHANGE_RETENTION, -change-retention
	Introspection     bool             // GRAPHQL_INTROSPECTION, -introspection
	ComplexityLimit   int              // GRAPHQL_COMPLEXITY_LIMIT, -complexity-limit
	LoaderWait        time.Duration    // DATALOADER_WAIT, -loader-wait
	CORSOrigins       []string         // CORS_ALLOWED_ORIGINS, -cors-origins, comma-separated
	LogLevel          slog.Level       // LOG_LEVEL, -log-level
	Auth              auth.Settings    // AUTH_* and their flags
	Trusted           TrustedDocuments // TRUSTED_DOCUMENTS*, -trusted-documents*

	// logLevel and cors are the texts Validate parses, once flags may have replaced them.
	logLevel, cors string
	// flagged: the settings have flags, and messages name them next to the variables.
	flagged bool
}

var tableNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)

// FromEnv reads the settings from the environment alone (cmd/lambda). Validate completes them.
func FromEnv(env Env) Shared {
	var s Shared
	s.read(env)
	return s
}

// read sets every setting from the environment, or its default where a variable is unset.
func (s *Shared) read(env Env) {
	s.Table = env.String("DYNAMODB_TABLE", DefaultTable)
	s.Region = env.Get("AWS_REGION")
	s.Endpoint = env.Get("AWS_ENDPOINT_URL_DYNAMODB")
	s.CursorSecret = env.Get("CURSOR_SECRET")
	s.OrderStatusShards = env.Int("ORDER_STATUS_SHARDS", repository.DefaultOrderStatusShards)
	s.ChangeRetention = env.Duration("CHANGE_RETENTION", repository.DefaultChangeRetention)
	s.Introspection = env.Bool("GRAPHQL_INTROSPECTION", true)
	s.ComplexityLimit = env.Int("GRAPHQL_COMPLEXITY_LIMIT", server.DefaultComplexityLimit)
	s.LoaderWait = env.Duration("DATALOADER_WAIT", loaders.DefaultWait)
	s.cors = env.Get("CORS_ALLOWED_ORIGINS")
	s.logLevel = env.String("LOG_LEVEL", "info")
	s.Auth = auth.Settings{
		HS256Secret: hs256Secret(env),
		JWKSURL:     env.Get("AUTH_JWKS_URL"),
		Issuer:      env.Get("AUTH_ISSUER"),
		Audience:    env.Get("AUTH_AUDIENCE"),
		Disabled:    env.Bool("AUTH_DISABLED", false),
		DevTokens:   env.Bool("AUTH_DEV_TOKENS", false),
	}
	s.Trusted.read(env)
}

// BindFlags reads the settings from the environment and declares a flag for each but the
// secrets, whose default is the environment's value, so that a deployment sets the environment
// and a developer overrides one value on the command line (cmd/server). Validate completes them
// after fs.Parse.
func (s *Shared) BindFlags(fs *flag.FlagSet, env Env) {
	s.read(env)
	s.flagged = true
	fs.StringVar(&s.Region, "region", s.Region, "AWS region (env AWS_REGION)")
	fs.StringVar(&s.Endpoint, "endpoint", s.Endpoint, "DynamoDB endpoint URL; empty means AWS itself (env AWS_ENDPOINT_URL_DYNAMODB)")
	fs.StringVar(&s.Table, "table", s.Table, "table name (env DYNAMODB_TABLE)")
	fs.IntVar(&s.OrderStatusShards, "order-status-shards", s.OrderStatusShards, "partitions per status of the order status index, N in the README (env ORDER_STATUS_SHARDS)")
	fs.DurationVar(&s.ChangeRetention, "change-retention", s.ChangeRetention, "how long the change log keeps a change for delta sync; a cursor older is CURSOR_EXPIRED (env CHANGE_RETENTION)")
	fs.BoolVar(&s.Introspection, "introspection", s.Introspection, "allow schema introspection (env GRAPHQL_INTROSPECTION)")
	fs.IntVar(&s.ComplexityLimit, "complexity-limit", s.ComplexityLimit, "maximum operation complexity (env GRAPHQL_COMPLEXITY_LIMIT)")
	fs.StringVar(&s.cors, "cors-origins", s.cors, "comma-separated browser origins allowed to call /query, or * (env CORS_ALLOWED_ORIGINS)")
	fs.StringVar(&s.logLevel, "log-level", s.logLevel, "debug, info, warn or error (env LOG_LEVEL)")
	fs.DurationVar(&s.LoaderWait, "loader-wait", s.LoaderWait, "dataloader batch window (env DATALOADER_WAIT)")
	a := &s.Auth
	fs.StringVar(&a.JWKSURL, "auth-jwks-url", a.JWKSURL, "the identity provider's JWKS URL, for RS256/ES256 tokens (env AUTH_JWKS_URL)")
	fs.StringVar(&a.Issuer, "auth-issuer", a.Issuer, "required token issuer, iss (env AUTH_ISSUER)")
	fs.StringVar(&a.Audience, "auth-audience", a.Audience, "required token audience, aud (env AUTH_AUDIENCE)")
	fs.BoolVar(&a.Disabled, "auth-disabled", a.Disabled, "accept every request without a token, as admin: local experiments only (env AUTH_DISABLED)")
	fs.BoolVar(&a.DevTokens, "dev-tokens", a.DevTokens, "print tokens for sample principals at start; needs AUTH_HS256_SECRET and a loopback HOST (env AUTH_DEV_TOKENS)")
	s.Trusted.bindFlags(fs)
}

// Validate parses the log level and the CORS origins and checks every setting, reporting each
// problem through bad; the messages name the variable, and the flag when there is one.
func (s *Shared) Validate(bad func(format string, a ...any)) {
	if !tableNameRE.MatchString(s.Table) {
		bad("%s: %q must be 3 to 255 letters, digits, '_', '-' or '.'", s.name("DYNAMODB_TABLE", "table"), s.Table)
	}
	if s.OrderStatusShards < 1 || s.OrderStatusShards > 1000 {
		bad("%s: %d must be between 1 and 1000", s.name("ORDER_STATUS_SHARDS", "order-status-shards"), s.OrderStatusShards)
	}
	if s.ChangeRetention < time.Second {
		bad("%s: %s must be at least 1s", s.name("CHANGE_RETENTION", "change-retention"), s.ChangeRetention)
	}
	if s.Endpoint != "" {
		if u, err := url.Parse(s.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("%s: %q is not an http(s) URL", s.name("AWS_ENDPOINT_URL_DYNAMODB", "endpoint"), s.Endpoint)
		}
	}
	if s.CursorSecret != "" && len(s.CursorSecret) < 32 {
		bad("CURSOR_SECRET: must have at least 32 characters")
	}
	if s.ComplexityLimit < 1 {
		bad("%s: %d must be positive", s.name("GRAPHQL_COMPLEXITY_LIMIT", "complexity-limit"), s.ComplexityLimit)
	}
	if s.LoaderWait <= 0 || s.LoaderWait > time.Second {
		bad("%s: %s must be between 0 and 1s", s.name("DATALOADER_WAIT", "loader-wait"), s.LoaderWait)
	}
	if err := s.LogLevel.UnmarshalText([]byte(s.logLevel)); err != nil {
		bad("%s: %q must be debug, info, warn or error", s.name("LOG_LEVEL", "log-level"), s.logLevel)
	}
	s.CORSOrigins = nil
	for _, o := range strings.Split(s.cors, ",") {
		if o = strings.TrimSpace(o); o != "" {
			s.CORSOrigins = append(s.CORSOrigins, o)
		}
	}
	for _, p := range s.Auth.Problems() {
		bad("%s", p)
	}
	s.Trusted.validate(bad, s.name)
}

// name is how messages call a setting: "VAR / -flag" where flags override the environment, the
// variable alone where there are none.
func (s *Shared) name(variable, flagName string) string {
	if s.flagged {
		return variable + " / -" + flagName
	}
	return variable
}

// hs256Secret is the HS256 secret: AUTH_HS256_SECRET, or the contents of the file
// AUTH_HS256_SECRET_FILE names (a container's secret, or one a compose service generated). Like
// every secret it has no flag, so that it does not show in process listings.
func hs256Secret(env Env) string {
	secret := env.Get("AUTH_HS256_SECRET")
	path := env.Get("AUTH_HS256_SECRET_FILE")
	switch {
	case path == "":
		return secret
	case secret != "":
		env.Bad("AUTH_HS256_SECRET and AUTH_HS256_SECRET_FILE: set one of them, not both")
		return secret
	}
	b, err := os.ReadFile(path)
	if err != nil {
		env.Bad("AUTH_HS256_SECRET_FILE: %v", err)
		return ""
	}
	return strings.TrimSpace(string(b))
}
