package repository

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go/middleware"
)

// shardCloser makes DescribeStream report every shard closed, as a reader that takes over finds a
// shard that rolled over during the handover (DynamoDB Local never closes its one shard). The
// shard is still read as it really is.
type shardCloser struct{ armed atomic.Bool }

func (c *shardCloser) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("CloseShards",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			if res, ok := out.Result.(*dynamodbstreams.DescribeStreamOutput); ok && err == nil && c.armed.Load() {
				for _, s := range res.StreamDescription.Shards {
					if s.SequenceNumberRange != nil {
						s.SequenceNumberRange.EndingSequenceNumber = aws.String(strings.Repeat("9", sequenceKeyWidth))
					}
				}
			}
			return out, md, err
		}), middleware.After)
}

// readerOn is a second Repo on r's table, with extra middleware: another instance.
func readerOn(t *testing.T, r *Repo, apiOptions ...func(*middleware.Stack) error) *Repo {
	t.Helper()
	other, err := New(context.Background(), Config{Table: r.table, Region: "us-east-1", Endpoint: os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"),
		LocalDatabase: r.table, apiOptions: apiOptions})
	if err != nil {
		t.Fatal(err)
	}
	return other
}

// startReading runs r's stream reader until the returned stop, once it announced the stream.
func startReading(t *testing.T, r *Repo) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	announced, done := make(chan struct{}), make(chan error, 1)
	var once sync.Once
	go func() {
		done <- r.StreamReader(fastStream).Run(ctx, StreamHandler{Stream: func(_ string, err error) {
			if err == nil {
				once.Do(func() { close(announced) })
			}
		}})
	}()
	select {
	case <-announced:
	case <-time.After(StreamWait):
		cancel()
		t.Fatal("the reader did not announce the stream")
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("Run returned %v", err)
			}
		}
	}
	t.Cleanup(stop)
	return stop
}

// loggedUpdates waits until the organization's change log holds want's last title, and returns
// the titles of its UPDATED changes in the log's order (each sequence number once).
func loggedUpdates(t *testing.T, r *Repo, org string, want []string) []string {
	t.Helper()
	deadline := time.Now().Add(StreamWait)
	for {
		changes, _, err := r.ChangesAfter(context.Background(), TicketChangeScope(org, ""), "", MaxChangesPage)
		if err != nil {
			t.Fatal(err)
		}
		var titles, seqs []string
		for _, c := range changes {
			if slices.Contains(seqs, c.Sequence) {
				t.Fatalf("sequence number %s logged twice", c.Sequence)
			}
			seqs = append(seqs, c.Sequence)
			if nt, ok := c.New.(*Ticket); ok && c.Kind == ChangeUpdated {
				titles = append(titles, nt.Title)
			}
		}
		if slices.Contains(titles, want[len(want)-1]) || time.Now().After(deadline) {
			return titles
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A reader that takes over resumes every shard its predecessor read, also one that closed during
// the handover, with changes the predecessor read but did not append: after the checkpoint when
// there is one, else from the start mark the predecessor recorded when it started the shard.
// Nothing a writer wrote is missing from the log, and nothing is in it twice.
func TestStreamHandoverResumesAShardThatClosedWithChangesNotYetAppended(t *testing.T) {
	r := newLocalRepo(t, Config{})
	tk := createTicketFor(t, r)

	// The first reader starts the shard (its start mark) and stops before it appended anything.
	startReading(t, r)()
	want := updateTitles(t, r, tk, "no checkpoint yet", 2)

	closer := &shardCloser{}
	closer.armed.Store(true)
	next := readerOn(t, r, closer.middleware)
	stop := startReading(t, next)
	if got := loggedUpdates(t, r, tk.OrgID, want); !slices.Equal(got, want) {
		t.Fatalf("from the start mark, the log has %v, want %v", got, want)
	}
	stop()

	// The next one closes with changes after its checkpoint.
	want = append(want, updateTitles(t, r, tk, "after the checkpoint", 2)...)
	startReading(t, readerOn(t, r, closer.middleware))
	if got := loggedUpdates(t, r, tk.OrgID, want); !slices.Equal(got, want) {
		t.Fatalf("after the checkpoint, the log has %v, want %v", got, want)
	}
	want = append(want, updateTitles(t, r, tk, "live", 1)...)
	if got := loggedUpdates(t, r, tk.OrgID, want); !slices.Equal(got, want) {
		t.Fatalf("then live, the log has %v, want %v", got, want)
	}
}
