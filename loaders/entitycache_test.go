package loaders

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/graph-gophers/dataloader/v7"

	"singletable/repository"
	"singletable/repository/saas"
)

// However many paths ask for a key at once, exactly one reserves it; a prime never replaces an
// entry, a mutation's set always does.
func TestEntityCacheReservesEachKeyOnce(t *testing.T) {
	var c entityCache
	k := repository.Key{PK: "ORG#1", SK: "METADATA#1"}
	read := &saas.Organization{ID: "read"}
	var reserved atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			th, _ := c.getOrReserve(k, func() dataloader.Thunk[repository.Entity] {
				reserved.Add(1)
				return done(read)
			})
			if e, _ := th(); e != repository.Entity(read) {
				t.Errorf("thunk answers %v", e)
			}
		}()
	}
	wg.Wait()
	if reserved.Load() != 1 {
		t.Fatalf("%d reservations of one key", reserved.Load())
	}
	c.prime(k, &saas.Organization{ID: "primed"})
	if th, _ := c.getOrReserve(k, nil); mustEntity(t, th) != repository.Entity(read) {
		t.Fatal("a prime replaced the lookup")
	}
	written := &saas.Organization{ID: "written"}
	c.set(k, written)
	if th, _ := c.getOrReserve(k, nil); mustEntity(t, th) != repository.Entity(written) {
		t.Fatal("a mutation's write did not replace the read")
	}
	other := repository.Key{PK: "other", SK: "other"}
	if _, fresh := c.getOrReserve(other, func() dataloader.Thunk[repository.Entity] { return done(read) }); !fresh {
		t.Fatal("another key is reserved on its own")
	}
}

func mustEntity(t *testing.T, th dataloader.Thunk[repository.Entity]) repository.Entity {
	t.Helper()
	e, err := th()
	if err != nil {
		t.Fatal(err)
	}
	return e
}
