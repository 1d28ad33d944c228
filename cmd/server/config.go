package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"singletable/auth"
	"singletable/loaders"
	"singletable/repository"
	"singletable/server"
)

// config is the server's configuration: environment variables first, flags override them, so a
// deployment sets the environment and a developer overrides one value on the command line.
// Secrets (CURSOR_SECRET, AUTH_HS256_SECRET) are read from the environment only, so that they do
// not show in process listings.
type config struct {
	port            int
	region          string
	endpoint        string
	table           string
	shards          int
	cursorSecret    string
	introspection   bool
	complexityLimit int
	corsOrigins     []string
	logLevel        slog.Level
	loaderWait      time.Duration
	shutdownTimeout time.Duration
	shutdownDelay   time.Duration
	createTable     bool
	seed            bool
	auth            auth.Settings
	playground      bool
	// devTokensBehindLoopback lets development tokens be served on a listen address that is
	// not loopback (AUTH_DEV_TOKENS_BEHIND_LOOPBACK; see checkDevTokenListener).
	devTokensBehindLoopback bool
	guard                   guardConfig
	ops                     opsConfig
}

var tableNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)

// parseConfig reads the environment through getenv, then the flags in args, and validates the
// result. Every error names the variable or flag at fault.
func parseConfig(args []string, getenv func(string) string, usage io.Writer) (config, error) {
	c := config{}
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	env := envReader{getenv: getenv, bad: bad}
	logLevel := getenv("LOG_LEVEL")
	if logLevel == "" {
		logLevel = "info"
	}
	cors := getenv("CORS_ALLOWED_ORIGINS")

	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.IntVar(&c.port, "port", env.Int("PORT", 8080), "HTTP port; 0 picks a free one (env PORT)")
	fs.StringVar(&c.region, "region", getenv("AWS_REGION"), "AWS region (env AWS_REGION)")
	fs.StringVar(&c.endpoint, "endpoint", getenv("AWS_ENDPOINT_URL_DYNAMODB"), "DynamoDB endpoint URL; empty means AWS itself (env AWS_ENDPOINT_URL_DYNAMODB)")
	fs.StringVar(&c.table, "table", orDefault(getenv("DYNAMODB_TABLE"), "app"), "table name (env DYNAMODB_TABLE)")
	fs.IntVar(&c.shards, "order-status-shards", env.Int("ORDER_STATUS_SHARDS", repository.DefaultOrderStatusShards), "partitions per status of the order status index, N in the README (env ORDER_STATUS_SHARDS)")
	fs.BoolVar(&c.introspection, "introspection", env.Bool("GRAPHQL_INTROSPECTION", true), "allow schema introspection (env GRAPHQL_INTROSPECTION)")
	fs.IntVar(&c.complexityLimit, "complexity-limit", env.Int("GRAPHQL_COMPLEXITY_LIMIT", server.DefaultComplexityLimit), "maximum operation complexity (env GRAPHQL_COMPLEXITY_LIMIT)")
	fs.StringVar(&cors, "cors-origins", cors, "comma-separated browser origins allowed to call /query, or * (env CORS_ALLOWED_ORIGINS)")
	fs.StringVar(&logLevel, "log-level", logLevel, "debug, info, warn or error (env LOG_LEVEL)")
	fs.DurationVar(&c.loaderWait, "loader-wait", env.Duration("DATALOADER_WAIT", loaders.DefaultWait), "dataloader batch window (env DATALOADER_WAIT)")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", env.Duration("SHUTDOWN_TIMEOUT", 20*time.Second), "how long SIGTERM waits for in-flight requests (env SHUTDOWN_TIMEOUT)")
	fs.DurationVar(&c.shutdownDelay, "shutdown-delay", env.Duration("SHUTDOWN_DELAY", 0), "after SIGTERM, keep serving at least this long with /readyz at 503, for load balancers to notice (env SHUTDOWN_DELAY)")
	fs.BoolVar(&c.playground, "playground", env.Bool("PLAYGROUND", true), "serve the GraphiQL playground at / (env PLAYGROUND)")
	fs.BoolVar(&c.createTable, "create-table", false, "create the table and its indexes if missing, and wait until active")
	fs.BoolVar(&c.seed, "seed", false, "load the sample dataset (idempotent)")
	authFlags(fs, &c, env)
	c.guard.register(fs, env)
	validateOps := opsFlags(fs, &c.ops, env)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		bad("unexpected argument %q", fs.Arg(0))
	}
	c.cursorSecret = getenv("CURSOR_SECRET")
	errs = append(errs, c.auth.Problems()...)

	if c.port < 0 || c.port > 65535 {
		bad("PORT / -port: %d is out of range 0..65535", c.port)
	}
	if !tableNameRE.MatchString(c.table) {
		bad("DYNAMODB_TABLE / -table: %q must be 3 to 255 letters, digits, '_', '-' or '.'", c.table)
	}
	if c.shards < 1 || c.shards > 1000 {
		bad("ORDER_STATUS_SHARDS / -order-status-shards: %d must be between 1 and 1000", c.shards)
	}
	if c.endpoint != "" {
		if u, err := url.Parse(c.endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("AWS_ENDPOINT_URL_DYNAMODB / -endpoint: %q is not an http(s) URL", c.endpoint)
		}
	}
	if c.cursorSecret != "" && len(c.cursorSecret) < 32 {
		bad("CURSOR_SECRET: must have at least 32 characters")
	}
	if c.complexityLimit < 1 {
		bad("GRAPHQL_COMPLEXITY_LIMIT / -complexity-limit: %d must be positive", c.complexityLimit)
	}
	if c.loaderWait <= 0 || c.loaderWait > time.Second {
		bad("DATALOADER_WAIT / -loader-wait: %s must be between 0 and 1s", c.loaderWait)
	}
	if c.shutdownTimeout <= 0 {
		bad("SHUTDOWN_TIMEOUT / -shutdown-timeout: %s must be positive", c.shutdownTimeout)
	}
	if c.shutdownDelay < 0 || c.shutdownDelay >= c.shutdownTimeout {
		bad("SHUTDOWN_DELAY / -shutdown-delay: %s must be at least 0 and less than SHUTDOWN_TIMEOUT (%s)", c.shutdownDelay, c.shutdownTimeout)
	}
	if err := c.logLevel.UnmarshalText([]byte(logLevel)); err != nil {
		bad("LOG_LEVEL / -log-level: %q must be debug, info, warn or error", logLevel)
	}
	for _, o := range strings.Split(cors, ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.corsOrigins = append(c.corsOrigins, o)
		}
	}
	c.guard.validate(bad)
	validateOps(bad)
	checkDevTokenListener(c, bad)
	if len(errs) > 0 {
		return c, fmt.Errorf("invalid configuration:\n  %s", strings.Join(errs, "\n  "))
	}
	return c, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// envReader reads typed environment variables: a malformed value is reported through bad, naming
// the variable, and the default stands in for it so that every problem is listed at once.
type envReader struct {
	getenv func(string) string
	bad    func(format string, a ...any)
}

func (e envReader) Int(name string, def int) int {
	v := e.getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		e.bad("%s=%q is not a whole number", name, v)
		return def
	}
	return n
}

func (e envReader) Float(name string, def float64) float64 {
	v := e.getenv(name)
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		e.bad("%s=%q is not a number", name, v)
		return def
	}
	return f
}

func (e envReader) Bool(name string, def bool) bool {
	v := e.getenv(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		e.bad("%s=%q is not true or false", name, v)
		return def
	}
	return b
}

func (e envReader) Duration(name string, def time.Duration) time.Duration {
	v := e.getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		e.bad("%s=%q is not a duration such as 500us or 2ms", name, v)
		return def
	}
	return d
}
