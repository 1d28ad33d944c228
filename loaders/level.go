package loaders

import (
	"context"
	"sync"
	"time"

	"github.com/graph-gophers/dataloader/v7"
)

// A list whose elements' to-one fields are NOT primed by its own Query (a customer's orders
// with a status filter come from GSI1 without their items) queues those lookups as soon as its
// Query returns (Prefetch). Sibling lists of one level, each with its own Query, return at
// different moments; if they return further apart than the key loader's window, the level's
// lookups split into several BatchGetItem calls. together lines such Queries up: the lists of a
// level register their Query, the level loader runs them all concurrently once its window closes,
// and releases every caller at the same moment, so that all their prefetches land in one batch.
// It costs one window per level of such lists; HR's inverse-relation lists (relLists) do the
// same with their own loader.

// levelJob is one list Query waiting for its level. Jobs are compared by pointer, so every call
// is its own key (the list memo already runs each distinct query once).
type levelJob struct {
	run func() (any, error)
}

func newLevelLoader(wait time.Duration) *dataloader.Loader[*levelJob, any] {
	return dataloader.NewBatchedLoader(batchLevel,
		dataloader.WithWait[*levelJob, any](wait),
		dataloader.WithCache[*levelJob, any](&dataloader.NoCache[*levelJob, any]{}))
}

// batchLevel runs the Queries of one level concurrently and answers when all are back.
func batchLevel(_ context.Context, jobs []*levelJob) []*dataloader.Result[any] {
	results := make([]*dataloader.Result[any], len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := j.run()
			results[i] = &dataloader.Result[any]{Data: v, Error: err}
		}()
	}
	wg.Wait()
	return results
}

// together runs run (a list Query, with the caller's own context) with the other lists of its
// level, and returns when all of them have returned. In per-parent mode it just runs it.
func together[T any](ctx context.Context, l *Loaders, run func() (T, error)) (T, error) {
	if l.perParent {
		return run()
	}
	v, err := l.level.Load(ctx, &levelJob{run: func() (any, error) { return run() }})()
	if err != nil {
		var zero T
		return zero, err
	}
	return v.(T), nil
}
