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
	m  map[repository.Key]cacheEntry
}

// A cacheEntry is a key's lookup. th is what a caller waits for; value is the entity as soon as
// it is read, before what its batch reserves next (keyBatch's follow), for the batches that need it
// to reserve their own next lookups: it waits for a read only, never for another batch's follow,
// so batches waiting on each other's values cannot wait in a circle.
type cacheEntry struct {
	th    dataloader.Thunk[repository.Entity]
	value dataloader.Thunk[repository.Entity]
	// owner is the batch whose follow releases th's callers (nil: a key loader's lookup, or an
	// entity read already).
	owner *keyBatch
	// read closes when value answers without waiting (nil: not known, a key loader's lookup).
	read <-chan struct{}
	// reader is the batch whose read value answers (nil: a key loader's lookup, or an entity read
	// already): the round of that read is the round of the value.
	reader *keyBatch
}

// isRead reports whether the entry's value is there already.
func (e cacheEntry) isRead() bool {
	if e.read == nil {
		return false
	}
	select {
	case <-e.read:
		return true
	default:
		return false
	}
}

// readAlready is the read of an entry that holds its entity: closed.
var readAlready = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// getOrReserve returns k's entry; when there is none it stores the thunk fetch returns (fetch runs
// under the lock and must only queue the lookup) and reports reserved.
func (c *entityCache) getOrReserve(k repository.Key, fetch func() dataloader.Thunk[repository.Entity]) (th dataloader.Thunk[repository.Entity], reserved bool) {
	return c.getOrReserveEntry(k, func() cacheEntry { th := fetch(); return cacheEntry{th: th, value: th} })
}

// getOrReserveEntry is getOrReserve for a lookup that says who reads it and when (a keyBatch's).
func (c *entityCache) getOrReserveEntry(k repository.Key, fetch func() cacheEntry) (th dataloader.Thunk[repository.Entity], reserved bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		return e.th, false
	}
	e := fetch()
	c.put(k, e)
	return e.th, true
}

// readNow is k's entity when its entry holds it already (false when there is none, its lookup is
// under way, or the item is missing).
func (c *entityCache) readNow(k repository.Key) (repository.Entity, bool) {
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	if !ok || !e.isRead() {
		return nil, false
	}
	v, err := e.value()
	return v, err == nil && v != nil
}

// primeEntry is getOrReserve's entry for an entity read already.
func primeEntry(e repository.Entity) cacheEntry {
	th := done(e) // one closure for both: a list primes every item it reads
	return cacheEntry{th: th, value: th, read: readAlready}
}

// take makes batch b the owner of k's entry, so that every caller asking for k from now on waits
// until b has reserved what k's objects need next, and until every batch that took k before has
// too (the entry it replaces): a caller may be of any of their levels, and each level's next
// lookups are reserved by its own batch. What b's follow reads k from:
//
//   - no entry: a fresh one, that b fetches;
//   - an entry read already: its value, followed at once (read);
//   - an entry another place is reading: that read's value (adopted, from being the batch
//     reading it), unless that batch reads in a later round than b (a deeper chain of reads that
//     got there first): b then fetches k itself, and the entry answers b's read, so that what
//     follows b (and whoever takes k next) stays one round after b's own read, whatever the
//     timing of the two chains.
func (c *entityCache) take(k repository.Key, b *keyBatch, fetch func() cacheEntry) (t taken) {
	c.mu.Lock()
	defer c.mu.Unlock()
	prev, ok := c.m[k]
	switch {
	case !ok:
		e := fetch()
		c.put(k, e)
		return taken{th: e.th, value: e.value}
	case prev.owner == b:
		return taken{th: prev.th, value: prev.value}
	}
	e := cacheEntry{value: prev.value, owner: b, read: prev.read, reader: prev.reader}
	switch {
	case prev.isRead():
		t = taken{value: prev.value, read: true}
	case prev.reader != nil && prev.reader.readsAfter(b):
		own := fetch()
		e.value, e.read, e.reader = own.value, own.read, own.reader
		t = taken{value: own.value}
	default:
		t = taken{value: prev.value, from: prev.reader, adopted: true}
	}
	value := e.value
	e.th = func() (repository.Entity, error) {
		<-b.done
		_, _ = prev.th() // the follow of the batches that took k before
		return value()
	}
	c.put(k, e)
	t.th = e.th
	return t
}

// taken is what take did: th and value as in cacheEntry; read when the entity was there already;
// adopted when another place is reading it, from being the batch that reads it (nil: a key
// loader's).
type taken struct {
	th, value     dataloader.Thunk[repository.Entity]
	read, adopted bool
	from          *keyBatch
}

func (c *entityCache) put(k repository.Key, e cacheEntry) {
	if c.m == nil {
		c.m = map[repository.Key]cacheEntry{}
	}
	c.m[k] = e
}

// prime stores e under k unless k has an entry (a read of the table never replaces a lookup
// under way or a mutation's write).
func (c *entityCache) prime(k repository.Key, e repository.Entity) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; !ok {
		c.put(k, primeEntry(e))
	}
}

// set stores e under k, replacing what k held (a mutation's write).
func (c *entityCache) set(k repository.Key, e repository.Entity) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.put(k, primeEntry(e))
}

// done is the thunk of a lookup already answered.
func done(e repository.Entity) dataloader.Thunk[repository.Entity] {
	return func() (repository.Entity, error) { return e, nil }
}
