package fleet

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"singletable/repository/store/storetest"
	"singletable/repository/stream"
)

// An instance that finds the Redis Stream trimmed past its position (entries it never read were
// dropped by MAXLEN) reports a gap, so that its hub ends its subscriptions with reason "gap" and
// their resume cursors, instead of going on with a silent hole.
func TestFeedReportsAGapWhenTheStreamWasTrimmedPastItsPosition(t *testing.T) {
	repo := storetest.New(t)
	f := open(t, "only")
	feed := f.Feed(repo, stream.StreamOptions{PollInterval: 20 * time.Millisecond})
	c := &collected{ready: make(chan struct{})}
	var holding atomic.Bool
	var gaps atomic.Int32
	hold := make(chan struct{})
	h := c.handler()
	collect := h.Changes
	h.Changes = func(ctx context.Context, batch []stream.Change) {
		collect(ctx, batch)
		if holding.Load() {
			<-hold // the instance falls behind
		}
	}
	h.Gap = func(string, string) { gaps.Add(1) }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- feed.Run(ctx, h) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-c.ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the feed did not become ready")
	}
	holding.Store(true)
	first, err := repo.CreateOrganization(ctx, "First")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { return c.of(first.Key()) == 1 })
	before, _ := f.feed.XLen(ctx, feed.stream).Result()
	for _, name := range []string{"Second", "Third", "Fourth"} {
		if _, err := repo.CreateOrganization(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	waitUntil(t, func() bool { n, _ := f.feed.XLen(ctx, feed.stream).Result(); return n >= before+3 })
	if err := f.feed.XTrimMaxLen(ctx, feed.stream, 1).Err(); err != nil {
		t.Fatal(err)
	}
	holding.Store(false)
	close(hold)
	waitUntil(t, func() bool { return gaps.Load() == 1 })
	if g := gaps.Load(); g != 1 {
		t.Fatalf("%d gaps reported", g)
	}
}
