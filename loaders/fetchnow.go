package loaders

import (
	"context"
	"fmt"

	"github.com/graph-gophers/dataloader/v7"

	"singletable/repository"
)

// FetchNow starts looking keys up at once, in the background (see fetchNow); the resolvers that
// ask for them then find them in the key loader. No-op in per-parent mode.
func (l *Loaders) FetchNow(ctx context.Context, keys ...repository.Key) {
	if l.perParent || len(keys) == 0 {
		return
	}
	l.fetchNow(ctx, keys)
}

// fetchNow looks keys up at once, without the key loader's batch window, for the places that hold
// every key of their level themselves: nodes(ids:) (all its ids) and the HR lists' batch function
// (all the employees, relation items and targets of the level). Waiting for the window there only
// adds its length to the level; nothing else would join the batch.
//
// It puts a pending result for every key not cached yet into the key loader's cache before it
// sends anything, so that resolvers looking those keys up meanwhile wait for this fetch instead
// of fetching again, and sends ⌈keys / 100⌉ BatchGetItem calls concurrently in the background. It
// returns one thunk per key, in key order; a missing item is errMissing, as from the loader.
func (l *Loaders) fetchNow(ctx context.Context, keys []repository.Key) []dataloader.Thunk[repository.Entity] {
	thunks := make([]dataloader.Thunk[repository.Entity], len(keys))
	type pending struct {
		done  chan struct{}
		v     repository.Entity
		err   error
		thunk dataloader.Thunk[repository.Entity]
	}
	waiting := map[repository.Key]*pending{}
	var fetch []repository.Key
	for i, k := range keys {
		if p, ok := waiting[k]; ok {
			thunks[i] = p.thunk
			continue
		}
		if t, ok := l.cache.Get(ctx, k); ok {
			thunks[i] = t
			continue
		}
		p := &pending{done: make(chan struct{})}
		p.thunk = func() (repository.Entity, error) {
			<-p.done
			return p.v, p.err
		}
		waiting[k] = p
		fetch = append(fetch, k)
		// The caller keeps its own thunk: the cache entry may be replaced meanwhile (Remember).
		l.cache.Set(ctx, k, p.thunk)
		thunks[i] = p.thunk
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
			if r := recover(); r != nil {
				err = fmt.Errorf("loaders: batch get panicked: %v", r)
			}
			for _, k := range fetch {
				p := waiting[k]
				switch e, ok := found[k]; {
				case err != nil:
					p.err = err
				case !ok:
					p.err = errMissing
				default:
					p.v = e
				}
				close(p.done)
			}
		}()
		found, err = l.repo.BatchGet(ctx, fetch)
	}()
	return thunks
}
