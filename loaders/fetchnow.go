package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"singletable/repository"
)

// FetchNow starts looking keys up at once, in the background (see fetchNow); the resolvers that
// ask for them then find them in the key loader. The per-parent baseline reads nothing ahead: its
// lookups wait until a resolver awaits them.
func (l *Loaders) FetchNow(ctx context.Context, keys ...repository.Key) {
	if len(keys) > 0 {
		l.byKey.Now(ctx, keys)
	}
}

// fetchNow looks keys up at once, without the key loader's batch window, for the places that hold
// every key of their level themselves: nodes(ids:) (all its ids) and the HR lists' fetcher (all
// the employees, relation items and targets of the level). Waiting for the window there only adds
// its length to the level; nothing else would join the batch.
//
// It reserves a pending entry for every key not cached yet in the request's entity cache before it
// sends anything (atomically per key, see entityCache), so that resolvers looking those keys up
// meanwhile wait for this fetch instead of fetching again, and sends ⌈keys / 100⌉ BatchGetItem
// calls concurrently in the background. It returns one thunk per key, in key order; a missing item
// is errMissing, as from the loader.
func (l *Loaders) fetchNow(ctx context.Context, keys []repository.Key) []dataloader.Thunk[repository.Entity] {
	thunks := make([]dataloader.Thunk[repository.Entity], len(keys))
	type result struct {
		v   repository.Entity
		err error
	}
	// One batch answers every key at once: one channel for all, one slice of results.
	done := make(chan struct{})
	results := make([]result, len(keys))
	waiting := map[repository.Key]*result{}
	var fetch []repository.Key
	for i, k := range keys {
		// The caller keeps its own thunk: the cache entry may be replaced meanwhile (Remember).
		thunks[i], _ = l.entities.getOrReserve(k, func() dataloader.Thunk[repository.Entity] {
			r := &results[i]
			waiting[k] = r
			fetch = append(fetch, k)
			return func() (repository.Entity, error) {
				<-done
				return r.v, r.err
			}
		})
	}
	if len(fetch) == 0 {
		return thunks
	}
	go func() {
		var found map[repository.Key]repository.Entity
		var err error
		ctx, end := l.startBatch(ctx, BatchFetchNow, len(fetch))
		defer end()
		defer func() {
			if p := recover(); p != nil {
				err = panicError("batch get", p)
			}
			for _, k := range fetch {
				r := waiting[k]
				switch e, ok := found[k]; {
				case err != nil:
					r.err = err
				case !ok:
					r.err = errMissing
				default:
					r.v = e
				}
			}
			close(done)
		}()
		found, err = l.repo.BatchGet(ctx, fetch)
	}()
	return thunks
}
