package server

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestRateLimiterBurstThenRate(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	l := newRateLimiter(50, 0, clock.now)
	for i := range 100 {
		if ok, _ := l.allow("a"); !ok {
			t.Fatalf("request %d of the burst of 100 was refused", i+1)
		}
	}
	ok, wait := l.allow("a")
	if ok || wait <= 0 || wait > 20*time.Millisecond {
		t.Fatalf("101st request: ok=%v wait=%v, want refused with a wait of at most 1/50 s", ok, wait)
	}
	if ok, _ := l.allow("b"); !ok {
		t.Fatal("another principal shares the first one's bucket")
	}
	clock.add(time.Second)
	n := 0
	for {
		if ok, _ := l.allow("a"); !ok {
			break
		}
		n++
	}
	if n != 50 {
		t.Fatalf("after one second %d requests passed, want 50", n)
	}
	if retryAfterSeconds(wait) != 1 || retryAfterSeconds(2500*time.Millisecond) != 3 {
		t.Fatal("Retry-After must round up to whole seconds, at least 1")
	}
}

// TestRateLimiterForgetsIdlePrincipals: the table of principals cannot grow without bound, both
// over time (idle principals are dropped) and within one idle period (a hard bound).
func TestRateLimiterForgetsIdlePrincipals(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	l := newRateLimiter(50, 0, clock.now)
	for i := range 10_000 {
		l.allow(fmt.Sprintf("client-%d", i))
	}
	if l.size() != 10_000 {
		t.Fatalf("%d principals, want 10000", l.size())
	}
	clock.add(l.idle + time.Second)
	l.allow("late")
	if l.size() != 1 {
		t.Fatalf("%d principals after everyone else was idle for %s, want 1", l.size(), l.idle)
	}

	l.max = 1000
	for i := range 50_000 {
		l.allow(fmt.Sprintf("flood-%d", i))
		if l.size() > l.max {
			t.Fatalf("%d principals, bound %d", l.size(), l.max)
		}
	}
}

// size is how many principals t holds a bucket for.
func (t *bucketTable) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.entries)
}
