// Package fleet is what the instances of a fleet share through Redis (or Valkey) when REDIS_URL
// is set: the one reader of the table's stream (chosen by a lease, Feed), the buckets of the rate
// limiter and the capacity budget (GCRA, Allow/Reserve/Settle), and the persisted queries
// (PersistedQuery/PersistQuery). Without REDIS_URL the server keeps all of them in process and
// this package is not used.
//
// Every call on a request's path is short (a few milliseconds' timeouts) and returns its error:
// the server falls back to its in-process state while Redis is unreachable, so queries and
// mutations never wait on it. The package is the only one that imports the Redis client.
package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// Timeouts of the calls to Redis. A request's call waits at most callTimeout: past it the
// instance answers from its own state. The feed's calls (the lease, publishing, reading the
// changes) have a connection pool of their own with feedTimeout: a busy machine must not lose the
// lease or end subscriptions over a slow moment, while LeaseTTL still bounds a handover.
const (
	dialTimeout = 500 * time.Millisecond
	callTimeout = 250 * time.Millisecond
	feedTimeout = time.Second
)

// Fleet is a connection to the fleet's Redis. It is safe for concurrent use.
type Fleet struct {
	rdb      *redis.Client
	feed     *redis.Client // the feed's pool (feedTimeout)
	limiter  *redis_rate.Limiter
	prefix   string
	instance string
	log      *slog.Logger
}

// Options configure Open; zero values take the defaults.
type Options struct {
	// Prefix starts every key this package writes ("singletable:"), so that one Redis can serve
	// several deployments.
	Prefix string
	// Instance names this instance in the lease (a random id when empty).
	Instance string
	// Logger receives the few messages of the lease and the feed (slog.Default when nil).
	Logger *slog.Logger
}

// Open parses a Redis URL (redis://[user:password@]host:port[/db], rediss:// for TLS) and returns
// a client; it does not wait for Redis, which may come up later.
func Open(url string, opts Options) (*Fleet, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = dialTimeout, callTimeout, callTimeout
	// A call that fails is answered from the instance's own state; retrying it here would only
	// make the request wait.
	o.MaxRetries = -1
	if opts.Prefix == "" {
		opts.Prefix = "singletable:"
	}
	if opts.Instance == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		opts.Instance = hex.EncodeToString(b)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	quietClient.Do(func() { redis.SetLogger(debugLog{}) })
	rdb := redis.NewClient(o)
	fo := *o
	fo.ReadTimeout, fo.WriteTimeout = feedTimeout, feedTimeout
	return &Fleet{rdb: rdb, feed: redis.NewClient(&fo), limiter: redis_rate.NewLimiter(rdb), prefix: opts.Prefix, instance: opts.Instance, log: opts.Logger}, nil
}

// ValidURL reports whether url is a Redis URL Open accepts.
func ValidURL(url string) error {
	_, err := redis.ParseURL(url)
	return err
}

// Instance is the name this instance holds the lease under.
func (f *Fleet) Instance() string { return f.instance }

// Ping reports whether Redis answers.
func (f *Fleet) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return f.rdb.Ping(ctx).Err()
}

// Close closes the connections.
func (f *Fleet) Close() error { return errors.Join(f.rdb.Close(), f.feed.Close()) }

func (f *Fleet) key(parts ...string) string {
	k := f.prefix
	for i, p := range parts {
		if i > 0 {
			k += ":"
		}
		k += p
	}
	return k
}

// quietClient sets the Redis client's logger once: its own messages (every failed dial, while
// Redis is out) go to slog's debug level; the outages that matter are logged once each by the
// server and the feed.
var quietClient sync.Once

type debugLog struct{}

func (debugLog) Printf(ctx context.Context, format string, v ...any) {
	slog.DebugContext(ctx, "redis client: "+fmt.Sprintf(format, v...))
}
