package fleet

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"singletable/apperr"
	"singletable/repository/store"
	"singletable/repository/stream"
)

// ErrUnavailable ends the subscriptions of an instance that cannot reach Redis, and refuses new
// ones until it can again: without Redis an instance receives no changes. Clients subscribe
// again (and refetch what they show) once it is back.
var ErrUnavailable = apperr.New(apperr.CodeUnavailable, "subscriptions are unavailable: the fleet's Redis cannot be reached; retry later")

// Feed is the fleet's source of changes (a changefeed.Source): every instance runs one, and the
// one holding the lease also reads the table's stream and publishes each change to a Redis Stream
// (XADD, trimmed to about StreamMaxLen entries), with the shard's checkpoint, in one script that
// first checks the lease. Every instance reads that Redis Stream (XREAD, blocking) from the entry
// it last read and hands the changes to its hub, which filters them for its own subscribers.
//
// Why a Redis Stream rather than pub/sub: an entry stays readable after it is published, so an
// instance that missed a moment (a slow loop, a reconnect within a short blip) reads on from
// where it was, and a new reader resumes the table's stream after the last change published
// (the checkpoint), so the changes written during a handover are delivered, not lost. A change
// published twice (two readers overlapping for an instant, or a record read again after a
// resume) carries the same shard and sequence number, and each instance hands a (shard,
// sequence) to its hub once: at most once per subscription.
type Feed struct {
	f       *Fleet
	repo    *store.Store
	opts    stream.StreamOptions
	lease   *lease
	stream  string
	marks   string
	leading atomic.Bool
}

// StreamMaxLen is about how many changes the Redis Stream keeps: enough for an instance's
// reconnect, while its memory stays bounded.
const StreamMaxLen = 10_000

// Feed returns the fleet's source of changes, whose reader (on the instance holding the lease)
// reads repo's stream with opts.
func (f *Fleet) Feed(repo *store.Store, opts stream.StreamOptions) *Feed {
	return &Feed{f: f, repo: repo, opts: opts, stream: f.key("changes"), marks: f.key("checkpoints"),
		lease: &lease{rdb: f.feed, key: f.key("reader"), reading: f.key("reading"), holder: f.instance, ttl: LeaseTTL}}
}

// Leading reports whether this instance holds the lease and reads the table's stream.
func (fd *Feed) Leading() bool { return fd.leading.Load() }

// Release gives the lease up, for a clean shutdown (after Run ended): another instance takes over
// at once rather than when the lease expires.
func (fd *Feed) Release(ctx context.Context) error { return fd.lease.release(ctx) }

// Run implements changefeed.Source: it reads the fleet's changes until ctx ends, and meanwhile
// competes for the lease and, while holding it, reads the table's stream for the fleet. The
// handler's Stream reports the instance ready once it reads Redis and a reader is at work, and
// ErrUnavailable while Redis cannot be reached.
func (fd *Feed) Run(ctx context.Context, h stream.StreamHandler) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fd.lead(ctx, h)
	}()
	fd.follow(ctx, h)
	<-done
	return ctx.Err()
}

// follow reads the Redis Stream and hands each change on once.
func (fd *Feed) follow(ctx context.Context, h stream.StreamHandler) {
	fl := &follower{Feed: fd, h: h, seen: map[string]seenShard{}}
	var failingSince time.Time
	for attempt := 0; ctx.Err() == nil; {
		err := fl.step(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			attempt, failingSince = 0, time.Time{}
			continue
		case errors.Is(err, errNotReady):
			attempt = 0
		default:
			// A failure or two (a slow moment) loses nothing: the next read goes on from the
			// last entry read. Failing for downAfter is an outage.
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			if time.Since(failingSince) >= downAfter {
				fl.down(err)
			}
			attempt++
		}
		sleepCtx(ctx, backoff(attempt))
	}
}

// downAfter is how long reading the changes may fail before the instance's subscriptions end.
const downAfter = 2 * time.Second

// backoff is the wait before a follower's attempt (0: not ready yet, look again soon).
func backoff(attempt int) time.Duration {
	return min(250*time.Millisecond<<min(attempt, 3), 2*time.Second)
}

var errNotReady = errors.New("no reader reads the table's stream yet")

// follower is the state of follow.
type follower struct {
	*Feed
	h  stream.StreamHandler
	up bool
	// pos is the id of the last entry read ("" while the instance has no position: at start and
	// after Redis failed).
	pos  string
	seen map[string]seenShard
	// reads counts the reads, for the occasional pruning of seen.
	reads int
}

// seenShard is the last sequence number handed on from a shard, and when.
type seenShard struct {
	seq string
	at  time.Time
}

// step positions the follower, reports it ready, or reads and hands on one batch.
func (fl *follower) step(ctx context.Context) error {
	if !fl.up {
		return fl.start(ctx)
	}
	res, err := fl.f.feed.XRead(ctx, &redis.XReadArgs{Streams: []string{fl.stream, fl.pos}, Count: 1000, Block: time.Second}).Result()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	if err != nil {
		return err
	}
	var batch []stream.Change
	for _, s := range res {
		for _, m := range s.Messages {
			if fl.gapped(m) {
				batch = nil // what came before the gap reaches no subscription: they all end
			}
			fl.pos = m.ID
			if c, ok := fl.decode(m); ok {
				batch = append(batch, c)
			}
		}
	}
	if len(batch) > 0 && fl.h.Changes != nil {
		fl.h.Changes(ctx, batch)
	}
	fl.prune()
	return nil
}

// gapped reports whether entries were trimmed from the Redis Stream between the last one the
// follower read and m (m names another entry as its predecessor), and if so reports the gap: the
// hub ends its subscriptions with reason "gap" and the cursors they resume from, and the
// changes missed are in the table's change log, which their replay reads.
func (fl *follower) gapped(m redis.XMessage) bool {
	prev, ok := m.Values["p"].(string)
	if !ok || prev == fl.pos {
		return false
	}
	fl.f.log.Warn("the fleet's changes were trimmed before this instance read them; its subscriptions end with a gap", "read", fl.pos, "next", m.ID, "after", prev)
	if fl.h.Gap != nil {
		fl.h.Gap("fleet", "trimmed")
	}
	return true
}

// start takes the position (the newest entry) and reports the instance ready once a reader reads
// the table's stream: every change published from then on reaches its subscribers.
func (fl *follower) start(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, feedTimeout)
	defer cancel()
	if err := fl.f.feed.Get(cctx, fl.lease.reading).Err(); errors.Is(err, redis.Nil) {
		return errNotReady
	} else if err != nil {
		return err
	}
	last, err := fl.f.feed.XRevRangeN(cctx, fl.stream, "+", "-", 1).Result()
	if err != nil {
		return err
	}
	fl.pos = "0-0"
	if len(last) > 0 {
		fl.pos = last[0].ID
	}
	fl.up = true
	fl.f.log.Info("the fleet's changes are read from Redis", "from", fl.pos)
	if fl.h.Stream != nil {
		fl.h.Stream(fl.stream, nil)
	}
	return nil
}

// down notes that Redis failed: the subscriptions end (the hub's Stream with ErrUnavailable), and
// the follower takes a new position once Redis answers (what was published meanwhile reached no
// subscription of this instance, and a restarted Redis numbers its entries anew).
func (fl *follower) down(err error) {
	if !fl.up {
		return
	}
	fl.up, fl.pos = false, ""
	fl.f.log.Warn("the fleet's Redis cannot be read; subscriptions are unavailable until it can", "error", err.Error())
	if fl.h.Stream != nil {
		fl.h.Stream("", ErrUnavailable)
	}
}

// decode decodes an entry and says whether it is new: a change whose shard and sequence number
// this instance handed on already (or one before it) is not.
func (fl *follower) decode(m redis.XMessage) (stream.Change, bool) {
	raw, _ := m.Values["c"].(string)
	c, err := stream.DecodeChange([]byte(raw))
	if err != nil {
		fl.f.log.Warn("an entry of the fleet's changes does not decode; skipped", "id", m.ID, "error", err.Error())
		return c, false
	}
	if last, ok := fl.seen[c.Shard]; ok && !stream.SequenceAfter(c.Sequence, last.seq) {
		return c, false
	}
	fl.seen[c.Shard] = seenShard{seq: c.Sequence, at: time.Now()}
	return c, true
}

// shardMemory is how long a shard's last sequence number is kept after its last change: a shard
// lives at most a few hours and its records 24, so nothing older can come again.
const shardMemory = 25 * time.Hour

// prune forgets the shards not heard of for shardMemory, every thousand reads.
func (fl *follower) prune() {
	if fl.reads++; fl.reads%1000 != 0 {
		return
	}
	for id, s := range fl.seen {
		if time.Since(s.at) > shardMemory {
			delete(fl.seen, id)
		}
	}
}
