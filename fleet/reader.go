package fleet

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"singletable/repository/stream"
)

// lead competes for the lease until ctx ends; while this instance holds it, it reads the table's
// stream for the fleet (hold).
func (fd *Feed) lead(ctx context.Context, h stream.StreamHandler) {
	for {
		if ok, err := fd.lease.claim(ctx, false); err == nil && ok {
			fd.hold(ctx, h)
		}
		if !sleepCtx(ctx, LeaseRetry) {
			return
		}
	}
}

// hold reads the table's stream, resuming after the checkpoints of the previous reader (the
// earlier of Redis's and the change log's in the table, per shard: StreamOptions.Resume), while
// it renews the lease every LeaseTTL/3. It returns, its reader stopped, as soon as a renewal fails:
// the lease may pass to another instance once it expires, and by then this one has stopped.
func (fd *Feed) hold(ctx context.Context, h stream.StreamHandler) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	marks, err := fd.checkpoints(ctx)
	if err != nil {
		return
	}
	fd.leading.Store(true)
	defer fd.leading.Store(false)
	fd.f.log.Info("this instance reads the table's stream for the fleet", "instance", fd.f.instance, "checkpoints", len(marks))
	var reading atomic.Bool
	opts := fd.opts
	opts.Resume = func(shard string) string { return marks[shard] }
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = fd.repo.StreamReader(opts).Run(ctx, fd.publisher(h, &reading, cancel))
	}()
	defer func() { cancel(); <-done }()
	tick := time.NewTicker(fd.lease.ttl / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case <-tick.C:
		}
		if ok, err := fd.lease.claim(ctx, reading.Load()); err != nil || !ok {
			fd.f.log.Warn("the lease of the stream's reader could not be renewed; reading stops", "renewed", ok, "error", errText(err))
			return
		}
	}
}

// publisher is the reader's handler: changes go to Redis; the reader's own news (lag, outages,
// gaps) to this instance's hub, whose metrics report them. A batch Redis refuses (this instance
// no longer holds the lease) stops the reader at once (stop), before it appends another chunk to
// the change log: the next holder publishes the one chunk appended and not published (the
// table's checkpoint names it), and would not know the positions of more.
func (fd *Feed) publisher(h stream.StreamHandler, reading *atomic.Bool, stop context.CancelFunc) stream.StreamHandler {
	return stream.StreamHandler{
		Changes: func(ctx context.Context, batch []stream.Change) {
			if !fd.publish(ctx, batch) {
				stop()
			}
		},
		Stream: func(_ string, err error) {
			if err == nil {
				reading.Store(true)
				_, _ = fd.lease.claim(context.Background(), true)
			}
		},
		Polled: h.Polled, Outage: h.Outage, Gap: h.Gap,
	}
}

// publish sends a batch of one shard's changes to the Redis Stream and moves the shard's
// checkpoint, retrying while Redis fails, until it succeeds or the reader stops (the lease is
// lost: the next reader resumes from the checkpoint, so the batch is read again, not lost). false
// when the script refused it: this instance no longer holds the lease.
func (fd *Feed) publish(ctx context.Context, batch []stream.Change) bool {
	args := []any{fd.lease.holder, StreamMaxLen, batch[len(batch)-1].Shard, batch[len(batch)-1].Sequence}
	for _, c := range batch {
		b, err := stream.EncodeChange(c)
		if err != nil {
			fd.f.log.Warn("a change cannot be encoded for the fleet; skipped", "error", err.Error())
			continue
		}
		args = append(args, b)
	}
	for attempt := 0; ; attempt++ {
		cctx, cancel := context.WithTimeout(ctx, feedTimeout)
		n, err := publishScript.Run(cctx, fd.f.feed, []string{fd.lease.key, fd.stream, fd.marks}, args...).Int()
		cancel()
		if err == nil && n == 0 {
			return false // no longer the holder
		}
		if err == nil || !sleepCtx(ctx, backoff(attempt)) {
			return true
		}
	}
}

// publishScript appends a batch to the Redis Stream and moves its shard's checkpoint, if the
// caller still holds the lease. KEYS: lease, stream, checkpoints; ARGV: holder, max length, shard,
// sequence number of the batch's last change, the encoded changes. Each entry also names the
// entry before it ("p"): a follower whose next entry names another than the one it read last
// knows that the entries between were trimmed (MAXLEN) before it read them (follower.gapped).
var publishScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) ~= ARGV[1] then return 0 end
local prev = "0-0"
local newest = redis.call("XREVRANGE", KEYS[2], "+", "-", "COUNT", 1)
if #newest > 0 then prev = newest[1][1] end
for i = 5, #ARGV do
  prev = redis.call("XADD", KEYS[2], "MAXLEN", "~", ARGV[2], "*", "c", ARGV[i], "p", prev)
end
redis.call("HSET", KEYS[3], ARGV[3], ARGV[4])
redis.call("PEXPIRE", KEYS[3], 90000000) -- 25 hours: older records are trimmed from the table's stream
return 1
`)

// checkpoints reads where the previous reader stopped: the last sequence number published from
// each shard.
func (fd *Feed) checkpoints(ctx context.Context) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, feedTimeout)
	defer cancel()
	return fd.f.feed.HGetAll(ctx, fd.marks).Result()
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
