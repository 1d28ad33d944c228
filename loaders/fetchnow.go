package loaders

import (
	"context"
	"sync"

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
	b := l.newKeyBatch()
	thunks := b.reserve(keys)
	b.send(ctx)
	return thunks
}

// A keyBatch is lookups gathered to be sent together: each key is reserved in the request's
// entity cache as it joins (resolvers asking for it meanwhile wait for the batch instead of
// fetching it again), and send sends all of them at once, ⌈keys / 100⌉ BatchGetItem calls
// concurrently, in the background. A level of lists uses one to hand each list to its resolvers
// as soon as it is back while its elements' lookups still go out in one batch when the last one
// is.
type keyBatch struct {
	l    *Loaders
	done chan struct{} // closes when every key is answered

	mu      sync.Mutex
	fetch   []repository.Key
	waiting map[repository.Key]*keyResult
	sent    bool
}

type keyResult struct {
	v   repository.Entity
	err error
}

func (l *Loaders) newKeyBatch() *keyBatch {
	return &keyBatch{l: l, done: make(chan struct{}), waiting: map[repository.Key]*keyResult{}}
}

// reserve adds keys to the batch (those not cached yet) and returns one thunk per key, in key
// order; a missing item is errMissing, as from the loader. It must come before send.
func (b *keyBatch) reserve(keys []repository.Key) []dataloader.Thunk[repository.Entity] {
	thunks := make([]dataloader.Thunk[repository.Entity], len(keys))
	results := make([]keyResult, len(keys)) // one allocation for the batch's results
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, k := range keys {
		// The caller keeps its own thunk: the cache entry may be replaced meanwhile (Remember).
		thunks[i], _ = b.l.entities.getOrReserve(k, func() dataloader.Thunk[repository.Entity] {
			r := &results[i]
			b.waiting[k] = r
			b.fetch = append(b.fetch, k)
			return func() (repository.Entity, error) {
				<-b.done
				return r.v, r.err
			}
		})
	}
	return thunks
}

// send sends the batch's keys, once; a batch without keys is answered at once.
func (b *keyBatch) send(ctx context.Context) {
	b.mu.Lock()
	fetch, sent := b.fetch, b.sent
	b.sent = true
	b.mu.Unlock()
	if sent {
		return
	}
	if len(fetch) == 0 {
		close(b.done)
		return
	}
	go func() {
		var found map[repository.Key]repository.Entity
		var err error
		ctx, end := b.l.startBatch(ctx, BatchFetchNow, len(fetch))
		defer end()
		defer func() {
			if p := recover(); p != nil {
				err = panicError("batch get", p)
			}
			for _, k := range fetch {
				r := b.waiting[k]
				switch e, ok := found[k]; {
				case err != nil:
					r.err = err
				case !ok:
					r.err = errMissing
				default:
					r.v = e
				}
			}
			close(b.done)
		}()
		found, err = b.l.repo.BatchGet(ctx, fetch)
	}()
}
