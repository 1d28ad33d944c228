package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"singletable/repository"
)

// A KeyFetcher is how the loaders look entities up by key. Production batches (batchedKeys, the
// default); the benchmark's per-parent baseline supplies its own through Options.Keys
// (loaders/perparent, never linked into the server). The typed lookups, Prefetch, FetchNow and
// the lists' priming go through it without a branch of their own.
type KeyFetcher interface {
	// Thunk queues k's lookup with the others of its level and returns the wait for it.
	Thunk(ctx context.Context, k repository.Key) dataloader.Thunk[repository.Entity]
	// Now sends the lookups of keys at once, without a batch window (see fetchNow); one thunk per
	// key, in key order.
	Now(ctx context.Context, keys []repository.Key) []dataloader.Thunk[repository.Entity]
	// Prime offers an entity a Query read; Set stores one a mutation wrote, replacing any other.
	Prime(k repository.Key, e repository.Entity)
	Set(k repository.Key, e repository.Entity)
}

// batchedKeys looks keys up through the request's entity cache: each key once, batched within
// the key loader's window (Thunk) or sent at once (Now).
type batchedKeys struct{ l *Loaders }

var _ KeyFetcher = batchedKeys{}

func (b batchedKeys) Thunk(ctx context.Context, k repository.Key) dataloader.Thunk[repository.Entity] {
	th, _ := b.l.entities.getOrReserve(k, func() dataloader.Thunk[repository.Entity] { return b.l.keys.Load(ctx, k) })
	return th
}

func (b batchedKeys) Now(ctx context.Context, keys []repository.Key) []dataloader.Thunk[repository.Entity] {
	return b.l.fetchNow(ctx, keys)
}

func (b batchedKeys) Prime(k repository.Key, e repository.Entity) { b.l.entities.prime(k, e) }
func (b batchedKeys) Set(k repository.Key, e repository.Entity)   { b.l.entities.set(k, e) }
