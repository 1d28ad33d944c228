package stream

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"singletable/repository"
)

// StreamWait bounds every wait of the stream tests for something to arrive (repotest.Wait, which
// this package's own tests cannot import). The tests never sleep to assert that something did not
// happen: they write a last change and check what came before it.
const StreamWait = 30 * time.Second

// StreamCollector runs a StreamReader for a test (this package's and the external ones) and
// collects what it reports.
type StreamCollector struct {
	changes            chan Change
	streams            chan string
	noStream           chan error
	Gaps, Outages, Ups atomic.Int64
	Records            atomic.Int64

	mu         sync.Mutex
	gapReasons []string
}

// GapReasons lists the reasons of the gaps reported so far.
func (c *StreamCollector) GapReasons() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.gapReasons)
}

// CollectStream starts r's stream reader until the test ends.
func CollectStream(t testing.TB, r *Stream, opts StreamOptions) *StreamCollector {
	t.Helper()
	c := &StreamCollector{changes: make(chan Change, 100_000), streams: make(chan string, 16), noStream: make(chan error, 16)}
	h := StreamHandler{
		Changes: func(_ context.Context, batch []Change) {
			for _, ch := range batch {
				c.changes <- ch
			}
		},
		Stream: func(arn string, err error) {
			if err != nil {
				c.noStream <- err
				return
			}
			c.streams <- arn
		},
		Polled: func(records int, _ time.Duration) { c.Records.Add(int64(records)) },
		Outage: func(err error) {
			if err != nil {
				c.Outages.Add(1)
			} else {
				c.Ups.Add(1)
			}
		},
		Gap: func(shard, reason string) {
			c.mu.Lock()
			c.gapReasons = append(c.gapReasons, shard+": "+reason)
			c.mu.Unlock()
			c.Gaps.Add(1)
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.StreamReader(opts).Run(ctx, h) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v, want context.Canceled", err)
		}
	})
	return c
}

// WaitStream waits until the reader reads a stream and returns its ARN.
func (c *StreamCollector) WaitStream(t testing.TB) string {
	t.Helper()
	return await(t, c.streams, "the reader to announce a stream")
}

// WaitNoStream waits until the reader reports that the table has no stream.
func (c *StreamCollector) WaitNoStream(t testing.TB) error {
	t.Helper()
	return await(t, c.noStream, "the reader to report a missing stream")
}

func await[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(StreamWait):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// Until returns the changes received up to and including the first one last accepts.
func (c *StreamCollector) Until(t testing.TB, last func(Change) bool) []Change {
	t.Helper()
	var got []Change
	deadline := time.After(StreamWait)
	for {
		select {
		case ch := <-c.changes:
			got = append(got, ch)
			if last(ch) {
				return got
			}
		case <-deadline:
			t.Fatalf("the expected change did not arrive; got %d changes before the deadline", len(got))
			return nil
		}
	}
}

// IsChangeOf says a change is about the entity with key k.
func IsChangeOf(k repository.Key) func(Change) bool {
	return func(c Change) bool { return c.Key == k }
}

// LogAppender is one reader's appender to the change log, for the tests that feed it the records
// of several shards themselves (DynamoDB Local's stream has one shard).
type LogAppender struct{ a *logAppender }

// NewLogAppender is the appender of a reader that starts now: it has read the log's checkpoints.
func NewLogAppender(ctx context.Context, r *Stream) (*LogAppender, error) {
	marks, err := r.logMarks(ctx)
	return &LogAppender{a: newLogAppender(r, marks)}, err
}

// Append appends a batch of one shard's changes as the reader does (chunk after chunk, again
// after a refusal) and returns what the appender handed on.
func (l *LogAppender) Append(ctx context.Context, shard string, batch []Change) ([]Change, error) {
	var handed []Change
	for len(batch) > 0 {
		n, err := l.a.next(ctx, shard, batch, func(chunk []Change) { handed = append(handed, chunk...) })
		if err != nil {
			return handed, err
		}
		batch = batch[n:]
	}
	return handed, nil
}

// RecordOf is the change a stream record of shard with sequence number seq would carry for e
// (CREATED, its item as it is in the table now).
func RecordOf(ctx context.Context, r *Stream, e repository.Entity, shard, seq string) (Change, error) {
	out, err := r.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.Table()), Key: e.Key().Attributes(), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return Change{}, err
	}
	c := Change{Kind: ChangeCreated, Key: e.Key(), Sequence: seq, Shard: shard, At: time.Now()}
	c.New, c.newItem, err = decodeEntityItem(out.Item)
	return c, err
}

// LogHead is the log's head.
func LogHead(ctx context.Context, r *Stream) (uint64, error) { return r.readLogHead(ctx) }
