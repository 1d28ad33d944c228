package changefeed_test

import (
	"runtime"
	"testing"

	"singletable/changefeed"
	"singletable/repository/stream"
)

// idleHeap returns the heap that n idle subscriptions of a hub with the given buffer hold, per
// subscription. The hub is not started: an idle subscription costs the same either way, and
// nothing here touches DynamoDB.
func idleHeap(n, buffer int) float64 {
	hub := changefeed.New(nil, nil, changefeed.Options{Buffer: buffer})
	subs := make([]*changefeed.Subscription, 0, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		s, err := hub.Subscribe("", func(stream.Change) bool { return true })
		if err != nil {
			panic(err)
		}
		subs = append(subs, s)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(subs)
	hub.Close()
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

// An idle subscription holds its buffer (a pointer per change) and a few words, whatever else
// happens: 1,000 of them with the default buffer stay under a megabyte.
func TestStreamHubIdleSubscriptionMemory(t *testing.T) {
	per := idleHeap(1000, changefeed.DefaultBuffer)
	t.Logf("heap per idle subscription (buffer %d): %.0f bytes; per 1,000: %.0f KiB", changefeed.DefaultBuffer, per, per*1000/1024)
	if limit := float64(changefeed.DefaultBuffer*8 + 512); per > limit {
		t.Fatalf("an idle subscription holds %.0f bytes, more than its buffer and bookkeeping (%.0f)", per, limit)
	}
}

// BenchmarkStreamHubIdleSubscriptions reports the heap of idle subscriptions, per subscription
// and per 1,000:
//
//	go test ./changefeed -run '^$' -bench IdleSubscriptions -benchtime 5x
func BenchmarkStreamHubIdleSubscriptions(b *testing.B) {
	var per float64
	for b.Loop() {
		per = idleHeap(1000, changefeed.DefaultBuffer)
	}
	b.ReportMetric(per, "B/subscription")
	b.ReportMetric(per*1000/1024, "KiB/1000subscriptions")
}
