// Package loaders holds the per-request dataloaders (graph-gophers/dataloader v7 for lookups by
// key, list loaders for Queries). A fresh set is built for every HTTP request by Middleware and
// found with For(ctx): loaders cache what one request read, and sharing them across requests would
// leak one caller's data and context into another's.
//
// Every lookup by key, whatever the entity type, goes through ONE key loader, so that all the
// lookups of one level of a query (a ticket's reporter and its organization, say) share the same
// BatchGetItem calls: ⌈unique keys / 100⌉ per level (the call budget, docs/api.md). Typed methods (User,
// Organization, ...) wrap it. Items read by a Query are primed into it and cost nothing later.
package loaders

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/graph-gophers/dataloader/v7"
	"go.opentelemetry.io/otel/trace"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/store"
)

// DefaultWait is how long the key loader (and the list loaders their resolvers ask one by one)
// collect before they send a batch; it is paid once per level that waits for it. Levels whose keys
// one place holds do not wait: a query's root lookups, the lists a level starts together and what
// their elements need (ReadAhead, FetchNow). The window is left for what gathers from sibling
// resolvers that no level holds, which gqlgen starts over a few hundred microseconds on an idle
// machine and over milliseconds on a busy one: too short a window splits a level into several
// batches, too long a one adds its length to every level that waits. How often each setting splits
// a level, and what it costs, is measured by BenchmarkLoaderWait and `make bench` (docs/api.md,
// "Choosing the dataloader wait"; docs/benchmarks.md).
const DefaultWait = time.Millisecond

// maxBatch is BatchGetItem's limit of keys per call: a full batch is sent at once.
const maxBatch = 100

// Options configure the loaders of a request.
type Options struct {
	// Wait is the batch window of the key loader and of the list loaders that gather a level
	// (DefaultWait when zero).
	Wait time.Duration
	// Keys, when set, is how the request's lookups by key are made: the KeyFetcher it returns
	// replaces the batching one (batchedKeys). The benchmarks and tests pass the per-parent
	// baseline's (loaders/perparent: one GetItem per lookup); nothing of it is part of the server.
	Keys func(repo *store.Store) KeyFetcher
	// OnBatch, if set, is told the size of every batch (metrics; see BatchObserver).
	OnBatch BatchObserver
	// TracerProvider receives a span per batch (the global provider when nil).
	TracerProvider trace.TracerProvider
}

// Loaders are the loaders of one request.
type Loaders struct {
	repo *store.Store
	// keys batches lookups by key into BatchGetItem calls; it caches nothing itself.
	keys *dataloader.Loader[repository.Key, repository.Entity]
	// entities is the lookups' cache, owned here and shared by every path that reads by key (see
	// entityCache).
	entities entityCache
	// byKey looks entities up by key: batched, or the baseline's.
	byKey KeyFetcher
	lists *listSet
	// onBatch and tracer report every batch (see observe.go).
	onBatch BatchObserver
	tracer  trace.Tracer
}

// New builds the loaders for one request.
func New(repo *store.Store, opts Options) *Loaders {
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	l := &Loaders{repo: repo, onBatch: opts.OnBatch, tracer: tracerOf(opts.TracerProvider)}
	l.keys = dataloader.NewBatchedLoader(l.batchGet,
		dataloader.WithCache[repository.Key, repository.Entity](&dataloader.NoCache[repository.Key, repository.Entity]{}),
		dataloader.WithWait[repository.Key, repository.Entity](opts.Wait),
		dataloader.WithBatchCapacity[repository.Key, repository.Entity](maxBatch),
		// Without an input buffer every Load hands its key to the batcher goroutine through an
		// unbuffered channel while holding the loader's lock: the Loads of one level queue up
		// behind goroutine switches and trickle past the end of the window, splitting the level
		// into several batches, even with a window of several milliseconds.
		dataloader.WithInputCapacity[repository.Key, repository.Entity](maxBatch),
	)
	l.byKey = batchedKeys{l}
	if opts.Keys != nil {
		l.byKey = opts.Keys(repo)
	}
	l.lists = newListSet(l, opts.Wait)
	return l
}

type ctxKey struct{}

// Middleware builds fresh loaders for every request and puts them into its context.
func Middleware(repo *store.Store, opts Options) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(NewContext(r.Context(), New(repo, opts))))
		})
	}
}

// NewContext returns ctx carrying l.
func NewContext(ctx context.Context, l *Loaders) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// For returns the loaders of the request ctx belongs to. It panics if Middleware did not run,
// which is a wiring bug, not a runtime condition.
func For(ctx context.Context) *Loaders {
	l, ok := ctx.Value(ctxKey{}).(*Loaders)
	if !ok {
		panic("loaders: no loaders in context; is loaders.Middleware installed?")
	}
	return l
}

// errMissing marks a key whose item does not exist; typed lookups turn it into NOT_FOUND with
// the entity's name.
var errMissing = errors.New("loaders: no item at key")

// batchGet is the key loader's batch function: one result per key, in key order, whatever order
// BatchGetItem returned the items in.
func (l *Loaders) batchGet(ctx context.Context, keys []repository.Key) []*dataloader.Result[repository.Entity] {
	ctx, end := l.startBatch(ctx, BatchKeys, len(keys))
	defer end()
	// A window gathers keys from wherever resolvers ask: the round of its batch is not one
	// context's, its times place it.
	ctx = repository.WithoutRound(ctx)
	results := make([]*dataloader.Result[repository.Entity], len(keys))
	found, err := l.repo.BatchGet(ctx, keys)
	for i, k := range keys {
		switch e, ok := found[k]; {
		case err != nil:
			results[i] = &dataloader.Result[repository.Entity]{Error: err}
		case !ok:
			results[i] = &dataloader.Result[repository.Entity]{Error: errMissing}
		default:
			results[i] = &dataloader.Result[repository.Entity]{Data: e}
		}
	}
	return results
}

// Prefetch starts the lookups of keys without waiting for them, through the key loader's window. A
// list read on its own (prefetchAhead) calls it with the keys its elements' selected to-one fields
// will ask for (a ticket's reporter, say): queued here in one tight loop, they join a single batch,
// however long gqlgen then takes to start each element's resolver (tens of siblings can outlast a
// short window). The later lookups find the keys cached.
func (l *Loaders) Prefetch(ctx context.Context, keys ...repository.Key) {
	for _, k := range keys {
		l.byKey.Thunk(ctx, k)
	}
}

// Remember puts entities a mutation has just written into this request's loaders, replacing what
// they held, so that the mutation's result reads what was written (an eventually consistent read
// right after the write might not). Cached lists may now be out of date and are dropped.
func (l *Loaders) Remember(ctx context.Context, written ...repository.Entity) {
	for _, e := range written {
		// One overwrite, not Clear then Prime: a lookup landing between the two would make the
		// Prime a no-op and leave a read of the table in the cache instead of the write.
		l.byKey.Set(e.Key(), e)
	}
	l.lists.clear()
}

// Lookup looks one entity up by key through the request's key loader, batched with the other
// lookups of its level; kind names it in a NOT_FOUND error. The node descriptors (graph/model)
// build their typed lookups on it.
func (l *Loaders) Lookup(ctx context.Context, key repository.Key, kind string) (repository.Entity, error) {
	return load[repository.Entity](ctx, l, key, kind)
}

// load looks one entity up through the key loader. kind names the entity in a NOT_FOUND error.
func load[T repository.Entity](ctx context.Context, l *Loaders, key repository.Key, kind string) (T, error) {
	var zero T
	e, err := l.byKey.Thunk(ctx, key)()
	if errors.Is(err, errMissing) || apperr.CodeOf(err) == apperr.CodeNotFound {
		return zero, apperr.NotFound(kind)
	}
	if err != nil {
		return zero, err
	}
	v, ok := e.(T)
	if !ok {
		return zero, apperr.NotFound(kind)
	}
	return v, nil
}

// prime stores entities read by a Query in the key loader, so that later lookups of the same keys
// in this request cost no call.
func prime[T repository.Entity](ctx context.Context, l *Loaders, items ...T) {
	for _, e := range items {
		l.byKey.Prime(e.Key(), e)
	}
}

// loadMany looks several entities up through the key loader at once, so that they join the same
// batch as every other lookup of their level; results are in key order. kind names the entity in
// a NOT_FOUND error.
func loadMany[T repository.Entity](ctx context.Context, l *Loaders, keys []repository.Key, kind string) ([]T, error) {
	out := make([]T, len(keys))
	// Load enqueues its key before it returns, so enqueueing every key first puts them all into
	// the current batch at once (the loader's LoadMany would start a goroutine per key instead,
	// and a slow one could miss the batch window).
	thunks := make([]dataloader.Thunk[repository.Entity], len(keys))
	for i, k := range keys {
		thunks[i] = l.byKey.Thunk(ctx, k)
	}
	for i, thunk := range thunks {
		e, err := thunk()
		if errors.Is(err, errMissing) || apperr.CodeOf(err) == apperr.CodeNotFound {
			return nil, apperr.NotFound(kind)
		}
		if err != nil {
			return nil, err
		}
		v, ok := e.(T)
		if !ok {
			return nil, apperr.NotFound(kind)
		}
		out[i] = v
	}
	return out, nil
}
