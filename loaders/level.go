package loaders

import (
	"context"
	"sync"
	"time"

	"github.com/graph-gophers/dataloader/v7"

	"singletable/repository"
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
	// next, if set, names the keys the list's elements will look up (an order's items): the
	// level's batch fetches those of every list at once, when all the Queries are back.
	next func(any) []repository.Key
}

func newLevelLoader(l *Loaders, wait time.Duration) *dataloader.Loader[*levelJob, any] {
	return dataloader.NewBatchedLoader(l.batchLevel,
		dataloader.WithWait[*levelJob, any](wait),
		dataloader.WithCache[*levelJob, any](&dataloader.NoCache[*levelJob, any]{}))
}

// batchLevel runs the Queries of one level concurrently, and when all are back starts the lookups
// their elements need, all in one batch (FetchNow), then answers.
func (l *Loaders) batchLevel(ctx context.Context, jobs []*levelJob) []*dataloader.Result[any] {
	ctx, end := l.startBatch(ctx, BatchLevel, len(jobs))
	defer end()
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
	var next []repository.Key
	for i, j := range jobs {
		if j.next != nil && results[i].Error == nil {
			next = append(next, j.next(results[i].Data)...)
		}
	}
	l.FetchNow(ctx, next...)
	return results
}

// together runs run (a list Query, with the caller's own context) with the other lists of its
// level, and returns when all of them have returned. In per-parent mode it just runs it.
func together[T any](ctx context.Context, l *Loaders, run func() (T, error), next func(T) []repository.Key) (T, error) {
	if l.perParent {
		return run()
	}
	return togetherStart(ctx, l, run, next)()
}

// togetherStart enqueues run with the other lists of its level now and returns the wait for its
// result: a parent that holds all the lists of a level enqueues them in one loop, so that they
// meet in one batch however late the scheduler would start their resolvers.
func togetherStart[T any](ctx context.Context, l *Loaders, run func() (T, error), next func(T) []repository.Key) func() (T, error) {
	job := &levelJob{run: func() (any, error) { return run() }}
	if next != nil {
		job.next = func(v any) []repository.Key { return next(v.(T)) }
	}
	thunk := l.level.Load(ctx, job)
	return func() (T, error) {
		v, err := thunk()
		if err != nil {
			var zero T
			return zero, err
		}
		return v.(T), nil
	}
}
