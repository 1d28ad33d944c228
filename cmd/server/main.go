// Command server serves the GraphQL API over one DynamoDB table.
//
//	go run ./cmd/server [-create-table] [-migrate] [-seed] [-recount] [flags]
//
// Configuration comes from the environment (PORT, AWS_REGION, AWS_ENDPOINT_URL_DYNAMODB,
// DYNAMODB_TABLE, ORDER_STATUS_SHARDS, CURSOR_SECRET, AUTH_*, ...) and flags, which override it;
// run with -h for the list. Every /query request needs a bearer token: AUTH_JWKS_URL or
// AUTH_HS256_SECRET configures their verification, and -dev-tokens prints tokens for sample
// principals.
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
	"os"
	"strconv"
	"time"

	"singletable/changefeed"
	"singletable/repository/maintenance"
	"singletable/repository/store"
	"singletable/server"
)

func main() {
	ctx, stop := shutdownSignals()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stderr, nil)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "server:", err)
		}
		os.Exit(1)
	}
}

// run starts the server and blocks until ctx is cancelled (the first SIGINT/SIGTERM), then shuts
// down gracefully: /readyz answers 503 at once, the listener stays open while requests are in
// flight (and for SHUTDOWN_DELAY) so that load balancers see it, then it closes and the last
// requests finish, all within SHUTDOWN_TIMEOUT. A second signal (see shutdownSignals) cuts the
// drain short. listening, if not nil, receives the address the server listens on (tests start
// it on port 0).
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer, listening func(addr string)) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	if cfg.ops.healthcheck {
		return healthcheck(cfg.guard.host, cfg.port, stderr)
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	obs, err := startObservability(ctx, cfg.ops, getenv, log)
	if err != nil {
		return err
	}
	defer obs.shutdown()
	repo, err := openTable(ctx, cfg, log, obs)
	if err != nil {
		return err
	}
	drain := &drainer{}
	serverCfg, devTokens, err := serverConfig(ctx, cfg, repo, log, obs, drain)
	if err != nil {
		return err
	}
	fl, err := joinFleet(cfg, log, &serverCfg)
	if err != nil {
		return err
	}
	if fl != nil {
		defer fl.Close()
	}
	src, release := changeSource(repo, fl)
	serverCfg.Hub = startHub(ctx, cfg, src, log, obs)
	// Removals left unfinished (by this instance or one that stopped mid-sweep) are finished in
	// the background; the sweep stops with the server and resumes at the next start.
	repo.StartSweeper(ctx, sweepInterval)
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.guard.host, strconv.Itoa(cfg.port)))
	if err != nil {
		return err
	}
	if devTokens != nil {
		printDevTokens(stderr, devTokens, displayAddr(ln.Addr()))
	}
	srv := httpServer(ctx, drain.wrap(server.New(repo, serverCfg)), log)
	log.Info("listening", "addr", ln.Addr().String(), "table", cfg.Table, "playground", "http://"+displayAddr(ln.Addr())+"/")
	if listening != nil {
		listening(ln.Addr().String())
	}
	err = serveUntilDone(ctx, cfg, srv, ln, drain, serverCfg.Hub, log)
	if err == nil {
		// A clean stop hands the fleet's stream reading over at once; a forced one (or a crash)
		// leaves the lease to expire.
		release(context.Background())
	}
	return err
}

// httpServer is the server of h: timeouts against slow clients, request contexts that outlive the
// shutdown signal (the drain decides when requests stop), errors logged as warnings.
func httpServer(ctx context.Context, h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// sweepInterval is how often the sweeper looks for removals left to finish besides the ones this
// instance starts (those wake it at once): another instance's, interrupted by its stop.
const sweepInterval = time.Minute

// startHub starts the instance's one reader of the table's stream (or its share of the fleet's),
// fanned out to its subscriptions (at most MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTIONS_PER_PRINCIPAL of
// one client). It reads until the shutdown closes it; a table without a stream is logged by the
// hub, which answers subscriptions UNAVAILABLE until one appears.
func startHub(ctx context.Context, cfg config, src changefeed.Source, log *slog.Logger, obs *observability) *changefeed.Hub {
	hub := changefeed.New(src, obs.metrics, changefeed.Options{
		MaxSubscriptions: cfg.guard.maxSubs, MaxPerOwner: cfg.guard.maxSubsEach, TracerProvider: obs.tracer, Logger: log,
	})
	hub.Start(context.WithoutCancel(ctx))
	return hub
}

// openTable connects to the table, creates it and loads the sample data when asked, and warns
// about what production must not run with.
func openTable(ctx context.Context, cfg config, log *slog.Logger, obs *observability) (*store.Store, error) {
	repoCfg := cfg.RepositoryConfig(log, obs.tracer)
	repoCfg.Observer = obs.metrics.DynamoDBCall
	repo, err := store.New(ctx, repoCfg)
	if err != nil {
		return nil, err
	}
	if cfg.CursorSecret == "" {
		log.Warn("CURSOR_SECRET is not set: using a random secret, so cursors break on restart and differ between instances; set it in production")
	}
	if err := prepareTable(ctx, cfg, repo, log); err != nil {
		return nil, err
	}
	if err := repo.Ready(ctx); err != nil {
		log.Warn("table not ready; /readyz will fail until it is", "error", err.Error())
	}
	return repo, nil
}

// prepareTable does what the flags ask of the table before the server serves: create it
// (-create-table), bring what earlier versions wrote to today's shapes (-migrate), load the sample
// data (-seed), set the counters from the collections (-recount), in that order, each logging what
// it did.
func prepareTable(ctx context.Context, cfg config, repo *store.Store, log *slog.Logger) error {
	if cfg.createTable {
		if err := repo.CreateTable(ctx, 2*time.Minute); err != nil {
			return err
		}
		log.Info("table ready", "table", cfg.Table)
	}
	if cfg.migrate {
		rep, err := repo.Migrate(ctx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		log.Info("migrated", "ticketsRekeyed", rep.TicketsRekeyed, "ticketsVersioned", rep.TicketsVersioned, "employeesIndexedByName", rep.EmployeesIndexedByName, "employeesNormalized", rep.EmployeesNormalized)
	}
	if cfg.seed {
		st, err := repo.Seed(ctx)
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		log.Info("sample data", "alreadyLoaded", st.AlreadyLoaded, "items", st.Items)
	}
	if cfg.recount {
		return recount(ctx, cfg, repo, log)
	}
	return nil
}

// recount runs -recount: every counter it repairs is logged as it is, then the totals; parents
// whose counters kept moving while they were counted are named in a warning (run it again).
func recount(ctx context.Context, cfg config, repo *store.Store, log *slog.Logger) error {
	rep, err := repo.Recount(ctx, maintenance.RecountOptions{
		Settle: cfg.recountSettle,
		Repaired: func(r maintenance.Repair) {
			was := "none"
			if r.Was != nil {
				was = strconv.Itoa(*r.Was)
			}
			log.Info("recount repaired", "parent", r.Parent, "counter", r.Counter, "was", was, "now", r.Now, "counted", r.Counted)
		},
	})
	if err != nil {
		return fmt.Errorf("recount: %w", err)
	}
	if len(rep.Busy) > 0 {
		log.Warn("recount: counters kept changing while they were counted; run -recount again", "parents", rep.Busy)
	}
	log.Info("recounted", "parents", rep.Parents, "repaired", rep.Repaired, "counters", len(rep.Repairs))
	return nil
}

// serverConfig is the handler's configuration: the token verifier and, with -dev-tokens, the
// development tokens (the first one in the playground's headers).
func serverConfig(ctx context.Context, cfg config, repo *store.Store, log *slog.Logger, obs *observability, drain *drainer) (server.Config, []devToken, error) {
	authn, err := cfg.Auth.Authenticator()
	if err != nil {
		return server.Config{}, nil, err
	}
	if cfg.Auth.Disabled {
		log.Warn("AUTH_DISABLED=true: every request is served as admin, without a token; never run this way where others can reach the server")
	}
	var devTokens []devToken
	var playgroundHeaders map[string]string
	if cfg.Auth.DevTokens {
		if devTokens, err = mintDevTokens(ctx, repo, cfg.Auth); err != nil {
			return server.Config{}, nil, fmt.Errorf("dev tokens: %w", err)
		}
		playgroundHeaders = map[string]string{"Authorization": "Bearer " + devTokens[0].token}
	}
	serverCfg := cfg.ServerConfig(log, authn)
	serverCfg.PlaygroundHeaders = playgroundHeaders
	// With development tokens the playground page carries the admin's: no other Host.
	serverCfg.LoopbackHostOnly = cfg.Auth.DevTokens
	// The playground's page and files; PLAYGROUND=false leaves / unrouted.
	serverCfg.DisablePlayground = !cfg.playground
	serverCfg.ShuttingDown = drain.draining.Load
	serverCfg.Metrics, serverCfg.TracerProvider = obs.metrics, obs.tracer
	cfg.guard.apply(&serverCfg)
	return serverCfg, devTokens, nil
}

// serveUntilDone serves on ln until ctx is cancelled, then drains and shuts srv down (see run).
func serveUntilDone(ctx context.Context, cfg config, srv *http.Server, ln net.Listener, drain *drainer, hub *changefeed.Hub, log *slog.Logger) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: /readyz answers 503, finishing in-flight requests; a second signal stops at once",
		"timeout", cfg.shutdownTimeout.String(), "delay", cfg.shutdownDelay.String())
	drain.draining.Store(true)
	srv.SetKeepAlivesEnabled(false) // clients reconnect, to another instance
	// Open subscriptions complete (their clients resubscribe elsewhere), and their WebSockets and
	// event streams close, so that they do not hold the drain up.
	hub.Close()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	force := forceDone(ctx)
	if err := drain.wait(shutdownCtx, force, cfg.shutdownDelay); errors.Is(err, errForced) {
		_ = srv.Close()
		return errForced
	}
	shutdownErr := make(chan error, 1)
	go func() { shutdownErr <- srv.Shutdown(shutdownCtx) }()
	select {
	case err := <-shutdownErr:
		if err != nil {
			_ = srv.Close()
			return fmt.Errorf("shutdown: %w", err)
		}
	case <-force:
		_ = srv.Close()
		return errForced
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

func displayAddr(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok && (t.IP == nil || t.IP.IsUnspecified()) {
		return net.JoinHostPort("localhost", strconv.Itoa(t.Port))
	}
	return a.String()
}
