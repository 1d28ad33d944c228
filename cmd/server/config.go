package main

import (
	"flag"
	"io"
	"time"

	"singletable/cmd/internal/settings"
	"singletable/repository/maintenance"
)

// config is the server's configuration: environment variables first, flags override them, so a
// deployment sets the environment and a developer overrides one value on the command line. The
// settings it shares with cmd/lambda (the table, cursors, GraphQL, loaders, logging, CORS, AUTH_*)
// are defined, read and validated in cmd/internal/settings; the rest is the server's own.
type config struct {
	port int
	settings.Shared
	shutdownTimeout time.Duration
	shutdownDelay   time.Duration
	createTable     bool
	seed            bool
	migrate         bool
	recount         bool
	recountSettle   time.Duration
	playground      bool
	// devTokensBehindLoopback lets development tokens be served on a listen address that is
	// not loopback (AUTH_DEV_TOKENS_BEHIND_LOOPBACK; see checkDevTokenListener).
	devTokensBehindLoopback bool
	guard                   guardConfig
	ops                     opsConfig
	// redisURL is the fleet's Redis (REDIS_URL; empty: a single instance).
	redisURL string
}

// parseConfig reads the environment through getenv, then the flags in args, and validates the
// result. Every error names the variable or flag at fault.
func parseConfig(args []string, getenv func(string) string, usage io.Writer) (config, error) {
	c := config{}
	var problems settings.Problems
	bad := problems.Add
	env := settings.Env{Getenv: getenv, Bad: bad}

	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.IntVar(&c.port, "port", env.Int("PORT", 8080), "HTTP port; 0 picks a free one (env PORT)")
	c.BindFlags(fs, env)
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", env.Duration("SHUTDOWN_TIMEOUT", 20*time.Second), "how long SIGTERM waits for in-flight requests (env SHUTDOWN_TIMEOUT)")
	fs.DurationVar(&c.shutdownDelay, "shutdown-delay", env.Duration("SHUTDOWN_DELAY", 0), "after SIGTERM, keep serving at least this long with /readyz at 503, for load balancers to notice (env SHUTDOWN_DELAY)")
	fs.BoolVar(&c.playground, "playground", env.Bool("PLAYGROUND", true), "serve the GraphiQL playground at / (env PLAYGROUND)")
	fs.BoolVar(&c.createTable, "create-table", false, "create the table and its indexes if missing, and wait until active")
	fs.BoolVar(&c.seed, "seed", false, "load the sample dataset (idempotent)")
	fs.BoolVar(&c.migrate, "migrate", false, "bring items earlier versions wrote to today's shapes (tickets keyed by their organization, tickets without versions), then serve; idempotent")
	fs.BoolVar(&c.recount, "recount", false, "set every counter (users, tickets and orders by status, employees, direct reports) from its collection, print each one it repaired, then serve; idempotent, safe while other instances serve")
	fs.DurationVar(&c.recountSettle, "recount-settle", maintenance.DefaultRecountSettle, "with -recount: how far behind the table an index may be; a count read from an index is taken again this long after the counters it replaces")
	fs.BoolVar(&c.devTokensBehindLoopback, "dev-tokens-behind-loopback", env.Bool("AUTH_DEV_TOKENS_BEHIND_LOOPBACK", false), "let -dev-tokens listen on a HOST that is not loopback, because everything in front of it is (a container whose port is published on 127.0.0.1 only) (env AUTH_DEV_TOKENS_BEHIND_LOOPBACK)")
	c.guard.register(fs, env)
	validateOps := opsFlags(fs, &c.ops, env)
	validateFleet := fleetFlags(fs, &c.redisURL, env)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		bad("unexpected argument %q", fs.Arg(0))
	}
	c.Validate(bad)

	if c.port < 0 || c.port > 65535 {
		bad("PORT / -port: %d is out of range 0..65535", c.port)
	}
	if c.recountSettle <= 0 {
		bad("-recount-settle: %s must be positive", c.recountSettle)
	}
	if c.shutdownTimeout <= 0 {
		bad("SHUTDOWN_TIMEOUT / -shutdown-timeout: %s must be positive", c.shutdownTimeout)
	}
	if c.shutdownDelay < 0 || c.shutdownDelay >= c.shutdownTimeout {
		bad("SHUTDOWN_DELAY / -shutdown-delay: %s must be at least 0 and less than SHUTDOWN_TIMEOUT (%s)", c.shutdownDelay, c.shutdownTimeout)
	}
	c.guard.validate(bad)
	validateOps(bad)
	validateFleet(bad)
	checkDevTokenListener(c, bad)
	return c, problems.Err()
}
