package changefeed_test

import (
	"context"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"singletable/changefeed"
	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/store"
	"singletable/repository/stream"
	"singletable/telemetry"
)

// The server's metrics are the hub's observer.
var _ changefeed.Observer = (*telemetry.Metrics)(nil)

// fast polls and describes often, so that the tests that end a stream finish quickly.
var fast = stream.StreamOptions{PollInterval: 10 * time.Millisecond, DescribeInterval: 100 * time.Millisecond, MaxBackoff: 50 * time.Millisecond}

// startHub starts a hub on repo's stream, closed when the test ends, and waits until it reads.
func startHub(t *testing.T, repo *store.Store, obs changefeed.Observer, opts changefeed.Options) *changefeed.Hub {
	t.Helper()
	hub := changefeed.New(repo.StreamReader(fast), obs, opts)
	hub.Start(context.Background())
	t.Cleanup(hub.Close)
	select {
	case <-hub.Ready():
	case <-time.After(repotest.Wait):
		t.Fatal("the hub did not start reading the stream")
	}
	return hub
}

// receive reads sub until a change last accepts (never, for a nil last) or the subscription
// ends, and returns what it read; the test fails if neither happens before the deadline.
func receive(t *testing.T, sub *changefeed.Subscription, last func(*stream.Change) bool) (got []*stream.Change, ended bool) {
	t.Helper()
	deadline := time.After(repotest.Wait)
	for {
		select {
		case c, open := <-sub.Events():
			if !open {
				return got, true
			}
			got = append(got, c)
			if last != nil && last(c) {
				return got, false
			}
		case <-deadline:
			t.Fatalf("timed out after %d changes", len(got))
		}
	}
}

// receiveUntil reads sub until a change last accepts; the test fails if the subscription ends
// first.
func receiveUntil(t *testing.T, sub *changefeed.Subscription, last func(*stream.Change) bool) []*stream.Change {
	t.Helper()
	got, ended := receive(t, sub, last)
	if ended {
		t.Fatalf("the subscription ended (%v) after %d changes", sub.Err(), len(got))
	}
	return got
}

// drain reads a subscription until its channel closes and returns what was left in it.
func drain(t *testing.T, sub *changefeed.Subscription) []*stream.Change {
	t.Helper()
	got, _ := receive(t, sub, nil)
	return got
}

func changeOf(k repository.Key) func(*stream.Change) bool {
	return func(c *stream.Change) bool { return c.Key == k }
}

// metric returns the value of a gauge or counter of m.
func metric(t *testing.T, m *telemetry.Metrics, name string) float64 {
	t.Helper()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		return value(f.GetMetric()[0])
	}
	t.Fatalf("no series %s", name)
	return 0
}

func value(m *dto.Metric) float64 {
	if m.GetGauge() != nil {
		return m.GetGauge().GetValue()
	}
	return m.GetCounter().GetValue()
}
