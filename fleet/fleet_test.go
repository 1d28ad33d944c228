package fleet

import (
	"context"
	"fmt"
	"testing"
	"time"

	"singletable/fleet/fleettest"
)

// open connects to the run's Redis under a prefix of the test's own.
func open(t *testing.T, instance string) *Fleet {
	t.Helper()
	f, err := Open(fleettest.URL(t), Options{Prefix: fmt.Sprintf("test-%s-%d:", t.Name(), time.Now().UnixNano()), Instance: instance})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// The lease has one holder; its renewal keeps it; once the holder stops renewing, another takes
// it after the expiry, not before; a release hands it over at once.
func TestLeaseHasOneHolderAndPassesOnWhenItExpires(t *testing.T) {
	f := open(t, "a")
	ctx := context.Background()
	a := &lease{rdb: f.rdb, key: f.key("reader"), reading: f.key("reading"), holder: "a", ttl: 400 * time.Millisecond}
	b := *a
	b.holder = "b"
	if ok, err := a.claim(ctx, false); !ok || err != nil {
		t.Fatalf("a free lease was not taken: %v %v", ok, err)
	}
	for range 3 {
		time.Sleep(200 * time.Millisecond)
		if ok, _ := b.claim(ctx, false); ok {
			t.Fatal("b took a lease a renews")
		}
		if ok, err := a.claim(ctx, true); !ok || err != nil {
			t.Fatalf("a could not renew: %v %v", ok, err)
		}
	}
	if v, _ := f.rdb.Get(ctx, a.reading).Result(); v != "a" {
		t.Fatalf("reading marker %q", v)
	}
	time.Sleep(500 * time.Millisecond) // a stopped renewing: the lease expired
	if ok, err := b.claim(ctx, false); !ok || err != nil {
		t.Fatalf("b did not take an expired lease: %v %v", ok, err)
	}
	if ok, _ := a.claim(ctx, false); ok {
		t.Fatal("a took back a lease b holds")
	}
	if err := a.release(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _ := a.claim(ctx, false); ok {
		t.Fatal("a's release freed b's lease")
	}
	if err := b.release(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _ := a.claim(ctx, false); !ok {
		t.Fatal("a released lease was not free at once")
	}
}

// The capacity budget in Redis: a reservation is refused once the bucket is empty, an
// overdrawing settlement empties it, a refund gives back.
func TestBudgetReservesAndSettles(t *testing.T) {
	f := open(t, "a")
	ctx := context.Background()
	const rate, burst = 0.01, 10 // a unit per 100 s: nothing refills during the test
	if taken, _, err := f.Reserve(ctx, "p", 4, rate, burst); taken != 4 || err != nil {
		t.Fatalf("reserve 4 of 10: took %d, %v", taken, err)
	}
	if left, err := f.Settle(ctx, "p", 4, 2, rate, burst); err != nil || left != 8 {
		t.Fatalf("settling 2 of 4 reserved left %d (%v), want 8", left, err)
	}
	if left, err := f.Settle(ctx, "p", 0, 20, rate, burst); err != nil || left != 0 {
		t.Fatalf("overdrawing left %d (%v), want 0", left, err)
	}
	taken, wait, err := f.Reserve(ctx, "p", 1, rate, burst)
	if taken != 0 || err != nil || wait < 50*time.Second {
		t.Fatalf("reserve from an empty bucket: took %d, wait %v, %v", taken, wait, err)
	}
	if taken, _, _ := f.Reserve(ctx, "q", 30, rate, burst); taken != burst {
		t.Fatalf("another principal's reservation above the burst took %d, want the whole bucket (%d)", taken, burst)
	}
}

// Persisted queries belong to their principal and are bounded per principal, oldest first.
func TestPersistedQueriesArePerPrincipalAndBounded(t *testing.T) {
	f := open(t, "a")
	ctx := context.Background()
	if err := f.PersistQuery(ctx, "alice", "h0", "{ a }"); err != nil {
		t.Fatal(err)
	}
	if q, ok, err := f.PersistedQuery(ctx, "alice", "h0"); !ok || q != "{ a }" || err != nil {
		t.Fatalf("alice's own: %q %v %v", q, ok, err)
	}
	if _, ok, _ := f.PersistedQuery(ctx, "bob", "h0"); ok {
		t.Fatal("bob found alice's document by its hash")
	}
	for i := 1; i <= MaxPersistedPerPrincipal; i++ {
		if err := f.PersistQuery(ctx, "alice", fmt.Sprint("h", i), "{ a }"); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, _ := f.PersistedQuery(ctx, "alice", "h0"); ok {
		t.Error("the oldest document outlived the bound")
	}
	if _, ok, _ := f.PersistedQuery(ctx, "alice", fmt.Sprint("h", MaxPersistedPerPrincipal)); !ok {
		t.Error("the newest document is gone")
	}
	if n, _ := f.rdb.ZCard(ctx, f.key("apqindex", principalID("alice"))).Result(); n != MaxPersistedPerPrincipal {
		t.Errorf("alice's index holds %d, want %d", n, MaxPersistedPerPrincipal)
	}
}
