package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"singletable/repository"
	"singletable/repository/benchfloor"
	"singletable/repository/repotest"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
	"singletable/server"
)

// TestSuiteCallsAtMinimum runs every operation of the benchmark suite once, batched, through the
// real handler on a small dataset, and fails when one makes other calls than the minimum the
// benchmark computes from the data: `make test` keeps the "no N+1" figures of docs/benchmarks.md
// true. It counts calls, not time. The direct floor is checked against the same minimum, which
// guards the benchmark's own arithmetic.
// The deep operations must also take no more dependent rounds than their plan's stages (with
// 20 ms per call, rounds are a matter of which call waits for which, not of scheduling noise).
func TestSuiteCallsAtMinimum(t *testing.T) {
	const breadth = 3
	seeder := storetest.New(t)
	// 20 ms per call, as in the budget tests, keeps the batch windows of one level together on a
	// busy CI machine.
	cfg := withLatency(repotest.Config(t, seeder.Table()), 20*time.Millisecond)
	repo, err := store.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	floor, err := benchfloor.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := seed(t.Context(), seeder, breadth)
	if err != nil {
		t.Fatal(err)
	}
	way := newHTTPWay(repo, server.Config{})
	defer way.close()
	shards := repository.DefaultOrderStatusShards

	check := func(name string, o op, b int, deep bool) {
		t.Helper()
		want := o.plan(d, b, shards)
		run := way.runner(o.query, o.vars(d, b))
		// A batch window can still split under the race detector on a loaded machine (a timing
		// accident, not a regression): the operation gets three tries to make its minimal calls,
		// after a warm-up. An N+1 regression makes extra calls every time and still fails.
		var s sample
		var err error
		for try := range 4 {
			if s, err = run(t.Context()); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if try > 0 && sameCalls(s.calls, want.calls) && (!deep || s.rounds <= want.rounds) {
				break
			}
		}
		if !sameCalls(s.calls, want.calls) {
			t.Errorf("%s: calls %v, want the minimum %v", name, s.calls, want.calls)
		}
		if deep && s.rounds > want.rounds {
			t.Errorf("%s: %d rounds, want at most its %d stages", name, s.rounds, want.rounds)
		}
	}
	for _, o := range singleOps {
		check(o.id, o, breadth, false)
	}
	for _, o := range deepOps {
		for _, b := range []int{1, breadth} {
			check(fmt.Sprintf("%s@%d", o.id, b), o, b, true)
			want := o.plan(d, b, shards)
			s, err := floorRunner(func(ctx context.Context) (benchfloor.Result, error) { return o.floor(ctx, floor, d, b) })(t.Context())
			if err != nil {
				t.Fatalf("floor %s: %v", o.id, err)
			}
			if !sameCalls(s.calls, want.calls) {
				t.Errorf("floor %s@%d: calls %v, want the minimum %v", o.id, b, s.calls, want.calls)
			}
			if s.rounds != want.rounds {
				t.Errorf("floor %s@%d: %d rounds, want %d stages", o.id, b, s.rounds, want.rounds)
			}
		}
	}
}
