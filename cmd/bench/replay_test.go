package main

import (
	"fmt"
	"testing"
	"time"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/store/storetest"
)

// The replay floor sends exactly the calls of the recorded batched run, in at most the plan's
// stages, and every replayed request succeeds against DynamoDB Local.
func TestReplayFloorRepeatsTheRecordedCalls(t *testing.T) {
	const breadth = 2
	seeder := storetest.New(t)
	d, err := seed(t.Context(), seeder, breadth)
	if err != nil {
		t.Fatal(err)
	}
	latency := 20 * time.Millisecond // keeps one level's calls in one round on a busy machine
	way, err := newRecordingWay(t.Context(), repotest.Config(t, seeder.Table()), latency)
	if err != nil {
		t.Fatal(err)
	}
	defer way.close()
	for _, o := range deepOps {
		name := fmt.Sprintf("%s@%d", o.id, breadth)
		want := o.plan(d, breadth, repository.DefaultOrderStatusShards)
		rp, err := way.replayOf(t.Context(), o.query, o.vars(d, breadth), latency)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !sameCalls(rp.calls, want.calls) {
			t.Errorf("%s: recorded calls %v, want the batched minimum %v", name, rp.calls, want.calls)
		}
		if len(rp.rounds) == 0 || len(rp.rounds) > want.rounds {
			t.Errorf("%s: %d rounds, want 1 to %d", name, len(rp.rounds), want.rounds)
		}
		s, err := rp.runner()(t.Context())
		if err != nil {
			t.Fatalf("%s: replay: %v", name, err)
		}
		// Each round waits out the added latency at least once.
		if min := time.Duration(len(rp.rounds)) * latency; s.wall < min {
			t.Errorf("%s: replay took %v, less than %d rounds × %v", name, s.wall, len(rp.rounds), latency)
		}
	}
}

// Rounds follow the recorded times: a call that starts after another ended is a round later;
// calls that overlap share a round.
func TestRoundsFromRecordedTimes(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }
	a := &recordedCall{start: at(0), end: at(10)}
	b := &recordedCall{start: at(1), end: at(12)}
	c := &recordedCall{start: at(11), end: at(20)} // after a, while b runs: round 2
	e := &recordedCall{start: at(21), end: at(30)} // after c: round 3
	got := rounds([]*recordedCall{e, c, b, a})
	want := [][]*recordedCall{{a, b}, {c}, {e}}
	if len(got) != len(want) {
		t.Fatalf("%d rounds, want %d", len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("round %d: %d calls, want %d", i, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("round %d call %d differs", i, j)
			}
		}
	}
}
