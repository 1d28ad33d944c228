package fleet

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"singletable/repository"
	"singletable/repository/store/storetest"
	"singletable/repository/stream"
)

// collected is what a Feed handed on: the changes, and whether it announced itself ready.
type collected struct {
	mu      sync.Mutex
	changes []stream.Change
	ready   chan struct{}
	once    sync.Once
}

func (c *collected) handler() stream.StreamHandler {
	return stream.StreamHandler{
		Changes: func(_ context.Context, batch []stream.Change) {
			c.mu.Lock()
			c.changes = append(c.changes, batch...)
			c.mu.Unlock()
		},
		Stream: func(_ string, err error) {
			if err == nil {
				c.once.Do(func() { close(c.ready) })
			}
		},
	}
}

// of counts the changes of key.
func (c *collected) of(key repository.Key) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, ch := range c.changes {
		if ch.Key == key {
			n++
		}
	}
	return n
}

// The feed hands each change on once: a change published again (a second reader overlapping
// the first for an instant) is recognised by its shard and sequence number and dropped.
func TestFeedHandsAChangePublishedTwiceOnOnce(t *testing.T) {
	repo := storetest.New(t)
	f := open(t, "only")
	feed := f.Feed(repo, stream.StreamOptions{PollInterval: 20 * time.Millisecond})
	c := &collected{ready: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- feed.Run(ctx, c.handler()) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-c.ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the feed did not become ready")
	}
	if !feed.Leading() {
		t.Fatal("the only instance does not hold the lease")
	}
	org, err := repo.CreateOrganization(ctx, "Once")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { return c.of(org.Key()) == 1 })
	// Publish the newest entry again, as an overlapping reader would.
	last, err := f.feed.XRevRangeN(ctx, feed.stream, "+", "-", 1).Result()
	if err != nil || len(last) != 1 {
		t.Fatalf("the Redis Stream: %v %v", last, err)
	}
	if err := f.feed.XAdd(ctx, &redis.XAddArgs{Stream: feed.stream, Values: last[0].Values}).Err(); err != nil {
		t.Fatal(err)
	}
	next, err := repo.CreateOrganization(ctx, "Next")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { return c.of(next.Key()) == 1 })
	if n := c.of(org.Key()); n != 1 {
		t.Fatalf("the change published twice was handed on %d times", n)
	}
}

func waitUntil(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatal("timed out")
}
