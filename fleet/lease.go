package fleet

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// The lease that makes one instance of the fleet the reader of the table's stream (DynamoDB
// Streams serves at most two readers per shard). It is one Redis key holding its holder's name
// with an expiry: taken when absent and renewed by its holder every LeaseTTL/3 (claimScript: SET PX), and, when the
// holder dies, free again at most LeaseTTL later, when the next instance to try takes it (they
// try every LeaseRetry). A holder that cannot renew in time (Redis unreachable, the process
// paused) stops reading before the lease can have passed to another; what it publishes is fenced
// by the lease all the same (publishScript checks the holder).

// Timing of the lease: another instance takes over within LeaseTTL + LeaseRetry of the holder's
// death (6 s), plus the time its reader takes to find the stream's shards.
const (
	LeaseTTL   = 5 * time.Second
	LeaseRetry = time.Second
)

type lease struct {
	rdb          *redis.Client
	key, reading string
	holder       string
	ttl          time.Duration
}

// claim takes the lease if it is free, or extends it if this instance holds it (the renewal);
// with reading, it marks the holder's reader as reading the stream, which Feed's followers wait
// for before they call themselves ready. The marker expires with the lease.
func (l *lease) claim(ctx context.Context, reading bool) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, feedTimeout)
	defer cancel()
	flag := "0"
	if reading {
		flag = "1"
	}
	n, err := claimScript.Run(ctx, l.rdb, []string{l.key, l.reading}, l.holder, l.ttl.Milliseconds(), flag).Int()
	return n == 1, err
}

// release gives the lease up at once (a clean shutdown), if this instance holds it.
func (l *lease) release(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, feedTimeout)
	defer cancel()
	return releaseScript.Run(ctx, l.rdb, []string{l.key, l.reading}, l.holder).Err()
}

var claimScript = redis.NewScript(`
local holder = redis.call("GET", KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
if ARGV[3] == "1" then redis.call("SET", KEYS[2], ARGV[1], "PX", ARGV[2]) end
return 1
`)

var releaseScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) ~= ARGV[1] then return 0 end
redis.call("DEL", KEYS[1])
if redis.call("GET", KEYS[2]) == ARGV[1] then redis.call("DEL", KEYS[2]) end
return 1
`)

// sleepCtx waits d or until ctx ends (false).
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
