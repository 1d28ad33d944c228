package stream_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/saas"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
	"singletable/repository/stream"
)

// startReading runs r's stream reader until the returned stop, once it announced the stream.
func startReading(t *testing.T, r *store.Store) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	announced, done := make(chan struct{}), make(chan error, 1)
	var once sync.Once
	opts := stream.StreamOptions{PollInterval: 20 * time.Millisecond, DescribeInterval: 200 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}
	go func() {
		done <- r.StreamReader(opts).Run(ctx, stream.StreamHandler{Stream: func(_ string, err error) {
			if err == nil {
				once.Do(func() { close(announced) })
			}
		}})
	}()
	select {
	case <-announced:
	case <-time.After(stream.StreamWait):
		cancel()
		t.Fatal("the reader did not announce the stream")
	}
	var stopOnce sync.Once
	stop = func() {
		stopOnce.Do(func() {
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("Run returned %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// loggedUpdates waits until the organization's change log holds want's last title, and returns
// the titles of its UPDATED changes in the log's order (failing on a sequence number logged twice,
// or positions out of order).
func loggedUpdates(t *testing.T, r *store.Store, org string, want []string) []string {
	t.Helper()
	deadline := time.Now().Add(stream.StreamWait)
	for {
		changes, _, err := r.ChangesAfter(context.Background(), stream.TicketChangeScope(org, ""), 0, stream.MaxChangesPage)
		if err != nil {
			t.Fatal(err)
		}
		var titles, seqs []string
		var last uint64
		for _, c := range changes {
			if slices.Contains(seqs, c.Sequence) {
				t.Fatalf("sequence number %s logged twice", c.Sequence)
			}
			seqs = append(seqs, c.Sequence)
			if c.Position <= last {
				t.Fatalf("position %d after %d", c.Position, last)
			}
			last = c.Position
			if nt, ok := c.New.(*saas.Ticket); ok && c.Kind == stream.ChangeUpdated {
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
// the handover with changes the predecessor read but did not append: after the checkpoint when
// there is one, else from the start mark the predecessor recorded when it started the shard.
// Nothing a writer wrote is missing from the log, and nothing is in it twice. (DynamoDB Local's
// one shard never closes: the readers that take over are told it did, repotest.ShardCloser.)
func TestStreamHandoverResumesAShardThatClosedWithChangesNotYetAppended(t *testing.T) {
	repo := storetest.New(t)
	ctx := context.Background()
	org, err := repo.CreateOrganization(ctx, "Org")
	if err != nil {
		t.Fatal(err)
	}
	u, err := repo.CreateUser(ctx, org.ID, "User", "user@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := repo.CreateTicket(ctx, org.ID, u.ID, "title", "body")
	if err != nil {
		t.Fatal(err)
	}
	closer := &repotest.ShardCloser{}
	closer.Set(true)
	takingOver := func() *store.Store {
		cfg := repotest.Config(t, repo.Table())
		cfg.WrapTransport = closer.Wrap
		next, err := repository.New(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return store.Of(next)
	}

	// The first reader starts the shard (its start mark) and stops before it appended anything.
	startReading(t, repo)()
	want := retitle(t, repo, tk, "no checkpoint yet", 2)
	stop := startReading(t, takingOver())
	if got := loggedUpdates(t, repo, org.ID, want); !slices.Equal(got, want) {
		t.Fatalf("from the start mark, the log has %v, want %v", got, want)
	}
	stop()

	// The next one takes over a closed shard with changes after its checkpoint.
	want = append(want, retitle(t, repo, tk, "after the checkpoint", 2)...)
	startReading(t, takingOver())
	if got := loggedUpdates(t, repo, org.ID, want); !slices.Equal(got, want) {
		t.Fatalf("after the checkpoint, the log has %v, want %v", got, want)
	}
	want = append(want, retitle(t, repo, tk, "live", 1)...)
	if got := loggedUpdates(t, repo, org.ID, want); !slices.Equal(got, want) {
		t.Fatalf("then live, the log has %v, want %v", got, want)
	}
}
