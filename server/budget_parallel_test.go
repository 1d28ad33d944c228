package server

import (
	"context"
	"testing"
	"time"
)

// A principal's ordinary parallelism on a 50 RCU bucket (CAPACITY_BUDGET_RCU=5): four operations
// whose plans could consume 1,100 RCU each run at once (each reserves an eighth of the bucket at
// most), and once they settled at the 8 RCU each consumed, 18 RCU are left. Refused, an
// operation's Retry-After is the wait once the operations in flight settle: a second while only
// reservations hold the bucket empty, not the minutes their worst cases would take to pay.
func TestParallelOperationsAreChargedWhatTheyConsume(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	b := newCapacityBudget(5, clock.now)
	ctx := context.Background()
	var running []*requestBudget
	for i := range 8 {
		rb := &requestBudget{store: b, local: b, key: "p"}
		if ok, wait := rb.reserve(ctx, 1100); !ok {
			t.Fatalf("operation %d of one principal refused (wait %v) with nothing consumed yet", i+1, wait)
		}
		running = append(running, rb)
	}
	ninth := &requestBudget{store: b, local: b, key: "p"}
	ok, wait := ninth.reserve(ctx, 1100)
	if ok || wait > time.Second {
		t.Fatalf("a ninth operation while eight are in flight: ok=%v, Retry-After %v, want refused for at most a second", ok, wait)
	}
	var left float64
	for _, rb := range running[:4] {
		left = rb.settle(8, false)
	}
	for _, rb := range running[4:] {
		left = rb.settle(0, false)
	}
	if left != 18 {
		t.Fatalf("left after four operations consumed 8 RCU each: %v, want 18", left)
	}
	if b.held("p") != 0 {
		t.Fatalf("reservations still counted in flight after every operation settled: %d", b.held("p"))
	}
	// Consumption, not reservations, puts the bucket in debt: its Retry-After is that debt's.
	b.square("p", 0, 38)
	if ok, wait := (&requestBudget{store: b, local: b, key: "p"}).reserve(ctx, 1); ok || wait < 3900*time.Millisecond || wait > 4100*time.Millisecond {
		t.Fatalf("20 RCU in debt at 5 RCU/s: ok=%v wait=%v, want refused for 4 s", ok, wait)
	}
}
