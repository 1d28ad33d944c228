package stream

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"singletable/repository"
)

// Defaults of StreamOptions.
const (
	// DefaultStreamPollInterval is the wait after a read of a shard that found nothing new: four
	// reads a second per shard, as AWS Lambda polls a stream, which keeps the delay from a write
	// to its delivery at a fraction of a second for the cost of one cheap call per poll.
	DefaultStreamPollInterval = 250 * time.Millisecond
	// DefaultStreamDescribeInterval is how often the reader lists the stream's shards to find the
	// new ones. A new shard appears when another ends (which the reader sees, and then looks at
	// once) or when a partition splits: at worst its changes are delivered this much later.
	DefaultStreamDescribeInterval = 30 * time.Second
	// DefaultStreamMaxBackoff caps the wait between tries while DynamoDB Streams fails or
	// throttles.
	DefaultStreamMaxBackoff = 10 * time.Second
)

// StreamOptions tune a StreamReader; zero values take the defaults.
type StreamOptions struct {
	PollInterval     time.Duration
	DescribeInterval time.Duration
	MaxBackoff       time.Duration
	// Resume, when set, gives the sequence number of the last record of a shard that an earlier
	// reader handed on ("" for none): the reader continues after it rather than at the shard's
	// newest record. A fleet's new reader resumes where the previous one stopped, so that the
	// changes written during the handover are delivered. Either way the reader also resumes
	// after the change log's checkpoints in the table (the earlier of the two), and from the
	// start marks of shards a previous reader started and had appended nothing of
	// (log.go).
	Resume func(shard string) string
}

// StreamHandler receives what a StreamReader reads and what happens to it. Its functions are
// called from the reader's goroutines (Changes from one per shard, so concurrently for
// different shards); they must be safe for concurrent use and return quickly. Nil ones are
// skipped.
type StreamHandler struct {
	// Changes receives the changes of one read of one shard (or a part of them: a chunk the
	// change log appended at once), in the order of the shard: the changes of one item always
	// come from one shard, in the order of its writes. Calls for all shards come one at a time,
	// in the order of the changes' positions in the log. The batch is the handler's to keep:
	// the reader does not reuse it.
	Changes func(ctx context.Context, batch []Change)
	// Stream reports the stream the reader reads (arn, with a nil err) once it has its
	// positions, so that any write from then on is delivered; or that the table has no stream
	// (err with ErrNoStream), while the reader keeps looking for one.
	Stream func(arn string, err error)
	// Polled follows every successful read: the records it returned (entities or not) and the
	// lag, the age of the newest record the slowest shard has read (zero when every shard is
	// caught up).
	Polled func(records int, lag time.Duration)
	// Outage reports that DynamoDB (Streams) cannot be reached or keeps failing (err set; the
	// reader retries with backoff until its context ends) or that it works again (err nil).
	Outage func(err error)
	// Gap reports that changes of a shard may have been missed (data trimmed from the stream
	// before the reader got to it, a shard gone, an iterator that expired before any read).
	Gap func(shard, reason string)
}

// A StreamReader reads the table's stream: DescribeStream to find the shards, GetShardIterator
// and GetRecords to read each shard, a child shard only after its parent is read to its end.
// Shards open when it starts are read from their newest record (LATEST); shards that appear
// later, from their oldest (TRIM_HORIZON), so nothing written while it runs is missed. It
// never gives up before its context ends: throttling and outages are retried with capped,
// jittered backoff, an expired iterator is renewed after the last record read
// (AFTER_SEQUENCE_NUMBER), trimmed data restarts the shard at its oldest record and is
// reported as a gap. A StreamReader needs one Run at a time.
type StreamReader struct {
	repo *Stream
	opts StreamOptions
}

// StreamReader returns a reader of the table's stream.
func (r *Stream) StreamReader(opts StreamOptions) *StreamReader {
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultStreamPollInterval
	}
	if opts.DescribeInterval <= 0 {
		opts.DescribeInterval = DefaultStreamDescribeInterval
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultStreamMaxBackoff
	}
	return &StreamReader{repo: r, opts: opts}
}

// Run reads the stream until ctx ends, then returns ctx's error. Without a stream it looks for
// one every DescribeInterval; when the stream it reads is disabled, it looks for the next one and
// reads that from its oldest record.
func (sr *StreamReader) Run(ctx context.Context, h StreamHandler) error {
	run := &streamRun{StreamReader: sr, h: h, lags: map[string]time.Duration{}, start: sr.readLogStart(ctx)}
	run.log = newLogAppender(sr.repo, run.start.marks)
	fromLatest := true
	for attempt := 0; ; {
		arn, err := run.findStream(ctx)
		if err != nil {
			return err
		}
		if run.readStream(ctx, arn, fromLatest) {
			fromLatest, attempt = false, 0
			continue
		}
		// The table names a stream that cannot be described (gone since, or not there yet):
		// look again after a while, not at once.
		if err := repository.SleepCtx(ctx, run.backoff(attempt)); err != nil {
			return err
		}
		attempt++
	}
}

// streamRun is the state of one Run: the handler, whether DynamoDB is failing, each shard's lag.
type streamRun struct {
	*StreamReader
	h StreamHandler
	// start is where each shard is read from: after its checkpoint, from a start mark, or as
	// the shard plan says.
	start *logStart
	// log appends every shard's changes to the change log, numbering them, and hands them on.
	log *logAppender

	mu        sync.Mutex
	down      bool
	downSince time.Time
	lags      map[string]time.Duration
}

// findStream waits for the table's stream: it returns its ARN, or an error once ctx ends.
func (run *streamRun) findStream(ctx context.Context) (string, error) {
	reported := false
	for attempt := 0; ; {
		arn, err := run.repo.StreamARN(ctx)
		wait := run.opts.DescribeInterval
		switch {
		case ctx.Err() != nil:
			return "", ctx.Err()
		case err == nil:
			run.ok()
			return arn, nil
		case errors.Is(err, repository.ErrNoStream):
			run.ok()
			attempt = 0
			if !reported {
				reported = true
				run.repo.Log.Warn("the table has no stream; looking again every "+wait.String(), "error", err.Error())
				if run.h.Stream != nil {
					run.h.Stream("", err)
				}
			}
		default:
			run.fail(err)
			wait = run.backoff(attempt)
			attempt++
		}
		if err := repository.SleepCtx(ctx, wait); err != nil {
			return "", err
		}
	}
}

// announce reports the stream being read.
func (run *streamRun) announce(arn string) {
	run.repo.Log.Info("reading the table's stream", "stream", arn)
	if run.h.Stream != nil {
		run.h.Stream(arn, nil)
	}
}

// fail notes a failed call that was not the caller's doing; the first of a run of failures
// starts an outage. Throttling is not an outage (DynamoDB is there, and says to slow down): the
// caller backs off all the same.
func (run *streamRun) fail(err error) {
	if throttled(err) {
		return
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.down {
		return
	}
	run.down, run.downSince = true, time.Now()
	run.repo.Log.Warn("the table's stream cannot be read; retrying until it can", "error", err.Error())
	if run.h.Outage != nil {
		run.h.Outage(err)
	}
}

// ok notes a successful call, which ends an outage.
func (run *streamRun) ok() {
	run.mu.Lock()
	defer run.mu.Unlock()
	if !run.down {
		return
	}
	run.down = false
	run.repo.Log.Info("the table's stream can be read again", "outage", time.Since(run.downSince).String())
	if run.h.Outage != nil {
		run.h.Outage(nil)
	}
}

// polled records a successful read of a shard and reports it with the lag of the slowest shard.
func (run *streamRun) polled(shard string, records int, lag time.Duration) {
	run.mu.Lock()
	defer run.mu.Unlock()
	run.lags[shard] = lag
	var worst time.Duration
	for _, l := range run.lags {
		worst = max(worst, l)
	}
	if run.h.Polled != nil {
		run.h.Polled(records, worst)
	}
}

// forget drops the lag of a shard that is no longer read.
func (run *streamRun) forget(shard string) {
	run.mu.Lock()
	delete(run.lags, shard)
	run.mu.Unlock()
}

// gap reports that changes of a shard may have been missed.
func (run *streamRun) gap(shard, reason string) {
	run.repo.Log.Warn("changes of the table's stream may have been missed", "shard", shard, "reason", reason)
	if run.h.Gap != nil {
		run.h.Gap(shard, reason)
	}
}

// backoff is the wait before retry attempt (0-based): full jitter under a ceiling that doubles
// from 50 ms up to MaxBackoff, so that the shards of a reader (and the readers of a fleet) do not
// retry in step.
func (sr *StreamReader) backoff(attempt int) time.Duration {
	ceiling := sr.opts.MaxBackoff
	if attempt < 20 {
		ceiling = min(ceiling, 50*time.Millisecond<<attempt)
	}
	return rand.N(ceiling) + time.Millisecond
}
