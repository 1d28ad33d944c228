package changefeed_test

import (
	"errors"
	"testing"
	"time"

	"singletable/apperr"
	"singletable/changefeed"
	"singletable/repository/repotest"
	"singletable/repository/saas"
	"singletable/repository/store/storetest"
	"singletable/telemetry"
)

// Another writer imports 240 tickets (BatchWriteItem, 25 at a time): they reach the stream as a
// burst far larger than a buffer. A subscriber that keeps reading gets every one of them; one
// that reads nothing ends with ErrSlow (UNAVAILABLE, reason "slow") after SlowAfter, and while
// dispatch waits for it the hub's lock is free: a subscription opens and the count answers at
// once.
func TestStreamHubBurstReachesASubscriberThatKeepsReading(t *testing.T) {
	repo := storetest.New(t)
	m := telemetry.NewMetrics()
	// Long enough that a reader on a loaded machine (the race detector, packages testing in
	// parallel) is never mistaken for a stalled one.
	const slowAfter = 4 * time.Second
	hub := startHub(t, repo, m, changefeed.Options{Buffer: 8, SlowAfter: slowAfter})
	reader, err := hub.Subscribe("reader", nil)
	if err != nil {
		t.Fatal(err)
	}
	stalled, err := hub.Subscribe("stalled", nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 240
	imported := storetest.Import(t, repo.Repo, "01ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FAW", n)
	want := map[string]bool{}
	for _, tk := range imported {
		want[tk.ID] = true
	}
	got := 0
	lockFree := false
	deadline := time.After(repotest.Wait)
	for got < n {
		select {
		case c, open := <-reader.Events():
			if !open {
				t.Fatalf("the reading subscriber ended after %d of %d changes: %v", got, n, reader.Err())
			}
			if tk, ok := c.New.(*saas.Ticket); ok && want[tk.ID] {
				got++
			}
			if got == n/2 {
				lockFree = hubAnswersAtOnce(t, hub)
			}
		case <-deadline:
			t.Fatalf("the reading subscriber got %d of %d changes", got, n)
		}
	}
	if !lockFree {
		t.Error("the hub's lock was held while dispatch waited for a stalled subscriber")
	}
	drain(t, stalled)
	err = stalled.Err()
	var coded *apperr.Error
	if !errors.Is(err, changefeed.ErrSlow) || !errors.As(err, &coded) || coded.Code != apperr.CodeUnavailable || coded.Reason != "slow" {
		t.Fatalf("the stalled subscriber ended with %v", err)
	}
	if d := metric(t, m, "singletable_subscriptions_dropped_total"); d != 1 {
		t.Fatalf("dropped %v, want 1", d)
	}
}

// hubAnswersAtOnce opens and closes a subscription and counts them, failing when that takes
// more than 100 ms.
func hubAnswersAtOnce(t *testing.T, hub *changefeed.Hub) bool {
	t.Helper()
	start := time.Now()
	s, err := hub.Subscribe("probe", nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	_ = hub.Subscriptions()
	return time.Since(start) < 100*time.Millisecond
}
