package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"singletable/repository"
)

// A keyFetcher is how the loaders look entities up by key. Production batches (batchedKeys);
// per-parent mode, the benchmarks' baseline, gives every lookup its own GetItem (perParentKeys).
// The typed lookups, Prefetch, FetchNow and the lists' priming go through it without a branch of
// their own.
type keyFetcher interface {
	// thunk queues k's lookup with the others of its level and returns the wait for it.
	thunk(ctx context.Context, k repository.Key) dataloader.Thunk[repository.Entity]
	// now sends the lookups of keys at once, without a batch window (see fetchNow); one thunk per
	// key, in key order.
	now(ctx context.Context, keys []repository.Key) []dataloader.Thunk[repository.Entity]
	// prime offers an entity a Query read; set stores one a mutation wrote, replacing any other.
	prime(k repository.Key, e repository.Entity)
	set(k repository.Key, e repository.Entity)
}

// batchedKeys looks keys up through the request's entity cache: each key once, batched within
// the key loader's window (thunk) or sent at once (now).
type batchedKeys struct{ l *Loaders }

func (b batchedKeys) thunk(ctx context.Context, k repository.Key) dataloader.Thunk[repository.Entity] {
	th, _ := b.l.entities.getOrReserve(k, func() dataloader.Thunk[repository.Entity] { return b.l.keys.Load(ctx, k) })
	return th
}

func (b batchedKeys) now(ctx context.Context, keys []repository.Key) []dataloader.Thunk[repository.Entity] {
	return b.l.fetchNow(ctx, keys)
}

func (b batchedKeys) prime(k repository.Key, e repository.Entity) { b.l.entities.prime(k, e) }
func (b batchedKeys) set(k repository.Key, e repository.Entity)   { b.l.entities.set(k, e) }

// perParentKeys looks every key up by its own GetItem, when (and each time) its thunk is awaited:
// nothing is batched, cached, primed or fetched ahead. Queued lookups nobody awaits (Prefetch,
// FetchNow) cost nothing.
type perParentKeys struct{ repo *repository.Repo }

func (p perParentKeys) thunk(ctx context.Context, k repository.Key) dataloader.Thunk[repository.Entity] {
	return func() (repository.Entity, error) { return p.repo.Get(ctx, k) }
}

func (p perParentKeys) now(ctx context.Context, keys []repository.Key) []dataloader.Thunk[repository.Entity] {
	out := make([]dataloader.Thunk[repository.Entity], len(keys))
	for i, k := range keys {
		out[i] = p.thunk(ctx, k)
	}
	return out
}

func (perParentKeys) prime(repository.Key, repository.Entity) {}
func (perParentKeys) set(repository.Key, repository.Entity)   {}
