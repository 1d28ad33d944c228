package loaders

import (
	"sync"

	"github.com/graph-gophers/dataloader/v7"

	"singletable/repository"
)

// entityCache is the cache of the lookups by key of one request. The loaders own it rather than
// the dataloader: lookups reach a key through several paths (a resolver's Load through the
// batching loader, fetchNow's immediate batch, a list's prime, a mutation's Remember), and each
// gets or reserves the key's entry in one step under this one lock. So two paths never both fetch
// a key, and no path writes an entry behind another's back between its check and its write.
type entityCache struct {
	mu sync.Mutex
	m  map[repository.Key]dataloader.Thunk[repository.Entity]
}

// getOrReserve returns k's entry; when there is none it stores the thunk fetch returns (fetch runs
// under the lock and must only queue the lookup) and reports reserved.
func (c *entityCache) getOrReserve(k repository.Key, fetch func() dataloader.Thunk[repository.Entity]) (th dataloader.Thunk[repository.Entity], reserved bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if th, ok := c.m[k]; ok {
		return th, false
	}
	if c.m == nil {
		c.m = map[repository.Key]dataloader.Thunk[repository.Entity]{}
	}
	th = fetch()
	c.m[k] = th
	return th, true
}

// prime stores e under k unless k has an entry (a read of the table never replaces a lookup
// under way or a mutation's write).
func (c *entityCache) prime(k repository.Key, e repository.Entity) {
	c.getOrReserve(k, func() dataloader.Thunk[repository.Entity] { return done(e) })
}

// set stores e under k, replacing what k held (a mutation's write).
func (c *entityCache) set(k repository.Key, e repository.Entity) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[repository.Key]dataloader.Thunk[repository.Entity]{}
	}
	c.m[k] = done(e)
}

// done is the thunk of a lookup already answered.
func done(e repository.Entity) dataloader.Thunk[repository.Entity] {
	return func() (repository.Entity, error) { return e, nil }
}
