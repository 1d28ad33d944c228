// Package repository is the storage engine of the one DynamoDB table: its indexes, key escaping,
// entity definitions and access patterns, reads, batches, transactions, retries, the call meter,
// cursors, counters and marked removals. The domains (repository/saas, hr, commerce, catalog)
// declare their items and access patterns with it and read and write through it; repository/store
// puts them together. With its sub-packages it is the only code that imports the AWS SDK; above
// it, the API sees entities, keys it cannot spell itself, opaque cursors and errors with codes.
package repository

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"
	"go.opentelemetry.io/otel/trace"
)

// Config configures a Repo.
type Config struct {
	// Table is the name of the one table (DYNAMODB_TABLE).
	Table string
	// Region overrides the SDK's region resolution (AWS_REGION) when set.
	Region string
	// Endpoint overrides the SDK's endpoint resolution (AWS_ENDPOINT_URL_DYNAMODB) when set. The
	// DynamoDB Streams client uses it too unless the SDK's configuration names an endpoint for
	// DynamoDB Streams (see newStreamsClient).
	Endpoint string
	// CursorSecret keys the HMAC of pagination cursors. Empty means a random per-process secret:
	// cursors then do not survive a restart and are not shared between instances.
	CursorSecret []byte
	// ChangeRetention is how long the change log keeps a change (CHANGE_RETENTION;
	// DefaultChangeRetention when zero): its items' TTL, and the age past which a cursor expires.
	ChangeRetention time.Duration
	// OrderStatusShards is N of the write-sharded order status index (AP20).
	OrderStatusShards int
	// MaxBatchAttempts bounds how often BatchGetItem is retried for UnprocessedKeys (default 8).
	MaxBatchAttempts int
	// Clock returns the current time; tests may replace it (default time.Now).
	Clock func() time.Time
	// Logger receives the SDK's own log messages and the few the repository writes itself
	// (-create-table enabling the stream, the stream reader's outages; slog.Default when nil).
	Logger *slog.Logger
	// MaxAttempts bounds the tries of one DynamoDB call on throttling and transient errors
	// (DefaultMaxAttempts when zero; see newRetryer).
	MaxAttempts int
	// WrapTransport, when set, wraps the HTTP transport of the SDK's client: tests and the
	// benchmark put a fault injector there (repotest.Throttler), a modelled network distance
	// (repotest.Latency), or a recorder of the requests an operation makes, to replay them as a
	// floor. Nil in production.
	WrapTransport func(http.RoundTripper) http.RoundTripper
	// Observer, if set, is told about every DynamoDB call (metrics; see CallObserver).
	Observer CallObserver
	// TracerProvider receives one span per DynamoDB call (the global provider when nil, which
	// records nothing until tracing is set up).
	TracerProvider trace.TracerProvider
	// LocalDatabase, when set, names a database of DynamoDB Local of the Repo's own: the Repo
	// signs its calls with a static access key derived from the name instead of the SDK's
	// credential chain. DynamoDB Local started without -sharedDb keeps one in-memory database,
	// each on a thread of its own, per access key and region, so the tests give each table a
	// database (repotest) and no test waits behind another's stream records. Empty in production.
	LocalDatabase string

	// apiOptions are extra SDK middleware; tests of this package inject faults with them.
	APIOptions []func(*middleware.Stack) error
}

// Repo reads and writes the table. It is safe for concurrent use.
type Repo struct {
	DB *dynamodb.Client
	// Streams reads the table's stream (repository/stream/reader.go).
	Streams   *dynamodbstreams.Client
	Log       *slog.Logger
	table     string
	Cursors   cursorCodec
	Shards    int
	retention time.Duration
	logUsage  changeLogUsage
	attempts  int
	Now       func() time.Time
	ids       *idSource
	BackoffFn func(attempt int) time.Duration
	// sweepKick wakes the sweeper (StartSweeper) after a delete that left a sweep record (sweep.go).
	sweepKick chan struct{}
	// Hooks are empty except in tests, which set them to stop a multi-step write at a chosen
	// point (the domains' export_test.go files, maintenance's lifecycle tests).
	Hooks testHooks
}

// AfterCorrectionRead runs the CorrectionRead hook, if any.
func (r *Repo) AfterCorrectionRead() {
	if r.Hooks.CorrectionRead != nil {
		r.Hooks.CorrectionRead()
	}
}

// testHooks let tests stop a multi-step write at a chosen point, to line up concurrent writes
// or interrupt one part way. A nil hook does nothing.
type testHooks struct {
	// RenameStep is called after each step of a rename's propagation with the step's index; an
	// error it returns stops the propagation there.
	RenameStep func(step int) error
	// TransferRead is called by TransferEmployee between its read and its transaction.
	TransferRead func()
	// CorrectionRead is called by updateUser, updateCustomer, relocateDepartment and
	// deleteDepartment between their read and their transaction.
	CorrectionRead func()
	// SweepVersions is called before the sweep of a ticket's versions; an error it returns is
	// that sweep's.
	SweepVersions func() error
	// SweepEmployee is called before the sweep removes a marked employee; an error it returns is
	// the sweep's (a removal cut short after its mark).
	SweepEmployee func() error
	// SweptUser is called after the sweep of an organization removed one of its users; an error
	// it returns stops the sweep there, as a crash would.
	SweptUser func() error
}

// New connects to DynamoDB (and its stream) with the SDK's default credential and region chain,
// overridden by cfg.
func New(ctx context.Context, cfg Config) (*Repo, error) {
	if cfg.Table == "" {
		return nil, errors.New("repository: table name is empty")
	}
	awsCfg, err := loadAWSConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	r, err := newRepo(dynamoClient(awsCfg, cfg), cfg)
	if err != nil {
		return nil, err
	}
	r.Streams = newStreamsClient(awsCfg, cfg)
	return r, nil
}

// NewClient is the SDK client a Repo of configuration cfg reads and writes with: its retries,
// connection pool and transport, and the middleware that meters every call on the context's Meter,
// observes it and traces it. A tool that reads the table with SDK calls of its own (the
// benchmark's floor, repository/benchfloor) takes its client from here, so that its calls are
// made and counted exactly as the API's.
func NewClient(ctx context.Context, cfg Config) (*dynamodb.Client, error) {
	awsCfg, err := loadAWSConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return dynamoClient(awsCfg, cfg), nil
}

// loadAWSConfig is the SDK configuration both clients (DynamoDB and DynamoDB Streams) share: the
// credential and region chain, the retries and the connection pool.
func loadAWSConfig(ctx context.Context, cfg Config) (aws.Config, error) {
	opts := []func(*config.LoadOptions) error{
		// Sibling fields resolve concurrently, so a request may have dozens of calls in flight:
		// keep enough idle connections to reuse them instead of re-dialling every time.
		config.WithHTTPClient(awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.MaxIdleConns = 256
			t.MaxIdleConnsPerHost = 256
		}).WithDialerOptions(func(d *net.Dialer) { d.KeepAlive = 30 * time.Second })),
		config.WithRetryer(func() aws.Retryer { return newRetryer(cfg.MaxAttempts) }),
	}
	if cfg.Region != "" {
		opts = append(opts, config.WithRegion(cfg.Region))
	}
	if cfg.LocalDatabase != "" {
		opts = append(opts, config.WithCredentialsProvider(LocalCredentials(cfg.LocalDatabase)))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("repository: load AWS config: %w", err)
	}
	if awsCfg.Region == "" {
		return aws.Config{}, errors.New("repository: no AWS region: set AWS_REGION")
	}
	return awsCfg, nil
}

// dynamoClient is the DynamoDB client of cfg on the SDK configuration awsCfg.
func dynamoClient(awsCfg aws.Config, cfg Config) *dynamodb.Client {
	return dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		o.HTTPClient = wrapHTTPClient(o.HTTPClient, cfg.WrapTransport)
		o.APIOptions = append(o.APIOptions, meterMiddleware, observeMiddleware(serviceDynamoDB, cfg.Table, cfg.Observer, cfg.TracerProvider, false))
		o.APIOptions = append(o.APIOptions, cfg.APIOptions...)
		o.Logger = sdkLogger(cfg.Logger)
	})
}

func newRepo(client *dynamodb.Client, cfg Config) (*Repo, error) {
	secret := cfg.CursorSecret
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, fmt.Errorf("repository: cursor secret: %w", err)
		}
	}
	r := &Repo{
		DB:        client,
		Log:       cfg.Logger,
		table:     cfg.Table,
		Cursors:   newCursorCodec(secret),
		Shards:    cfg.OrderStatusShards,
		retention: cfg.ChangeRetention,
		attempts:  cfg.MaxBatchAttempts,
		Now:       cfg.Clock,
		ids:       NewIDSource(),
		sweepKick: make(chan struct{}, 1),
	}
	if r.retention <= 0 {
		r.retention = DefaultChangeRetention
	}
	if r.Shards <= 0 {
		r.Shards = DefaultOrderStatusShards
	}
	if r.attempts <= 0 {
		r.attempts = 8
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Log == nil {
		r.Log = slog.Default()
	}
	r.BackoffFn = Backoff
	return r, nil
}

// DefaultOrderStatusShards is N for the order status index when ORDER_STATUS_SHARDS is unset,
// chosen by the sizing in repository/commerce/read_status.go. It must not shrink on a live table.
const DefaultOrderStatusShards = 4

// Table returns the table name.
func (r *Repo) Table() string { return r.table }

// OrderStatusShards returns N of the order status index: ordersByStatus makes one Query per shard
// and page, which the API's complexity prices.
func (r *Repo) OrderStatusShards() int { return r.Shards }

// sdkLogger sends the SDK's log lines to slog. The SDK warns when it closes the body of an error
// response (a failed condition, say) without reading it to the end, which fails the CRC32 check
// of a body it did not need; that is expected and goes to debug.
func sdkLogger(l *slog.Logger) logging.Logger {
	if l == nil {
		l = slog.Default()
	}
	return logging.LoggerFunc(func(c logging.Classification, format string, v ...any) {
		msg := fmt.Sprintf(format, v...)
		level := slog.LevelWarn
		if c == logging.Debug || strings.HasPrefix(msg, "failed to close HTTP response body") {
			level = slog.LevelDebug
		}
		l.Log(context.Background(), level, "aws sdk", "message", msg)
	})
}

// transportClient lets Config.WrapTransport wrap the SDK's HTTP client as an http.RoundTripper.
type transportClient struct{ rt http.RoundTripper }

func (c transportClient) Do(r *http.Request) (*http.Response, error) { return c.rt.RoundTrip(r) }

type clientTransport struct{ c aws.HTTPClient }

func (t clientTransport) RoundTrip(r *http.Request) (*http.Response, error) { return t.c.Do(r) }

// wrapHTTPClient applies wrap (when set) around the SDK's HTTP client.
func wrapHTTPClient(c aws.HTTPClient, wrap func(http.RoundTripper) http.RoundTripper) aws.HTTPClient {
	if wrap == nil {
		return c
	}
	return transportClient{wrap(clientTransport{c})}
}
