package server

import (
	"testing"
	"time"
)

// The capacity bucket: a full burst of 10 × the rate, debited after the fact (below zero if an
// operation consumed more than was left), refusing while at or below zero with the wait until it
// is positive again; principals are independent, and one in debt is not forgotten as idle (it
// would come back with a full bucket).
func TestCapacityBucketDebtAndRefill(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	b := newCapacityBudget(10, clock.now) // 10 RCU/s, burst 100 RCU
	if ok, _ := b.reserveNow("a", 0); !ok {
		t.Fatal("a new principal is refused")
	}
	if left := b.square("a", 0, 130); left != -30 {
		t.Fatalf("left %v after 130 of 100, want -30", left)
	}
	ok, wait := b.reserveNow("a", 0)
	if ok || wait < 3*time.Second || wait > 3*time.Second+time.Millisecond {
		t.Fatalf("in debt of 30 RCU at 10/s: ok=%v wait=%v, want refused for 3 s", ok, wait)
	}
	if ok, _ := b.reserveNow("b", 0); !ok {
		t.Fatal("another principal shares a's bucket")
	}
	clock.add(2 * time.Second)
	if ok, _ := b.reserveNow("a", 0); ok {
		t.Fatal("a passes while still in debt")
	}
	clock.add(1100 * time.Millisecond)
	if ok, _ := b.reserveNow("a", 0); !ok {
		t.Fatal("a is refused once the bucket is positive again")
	}
	// A debtor outlives the idle period of full buckets: the sweep keeps it until it is full.
	b.square("a", 0, 1000)
	clock.add(b.idle + time.Second)
	b.reserveNow("c", 0)
	if left := b.square("a", 0, 0); left >= 0 {
		t.Fatalf("a's debt was forgotten after %s idle: %v left", b.idle, left)
	}
}
