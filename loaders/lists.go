package loaders

import (
	"context"
	"errors"
	"sync"
	"time"

	"singletable/apperr"
	"singletable/repository"
)

// A listLoader runs the list reads of one kind (a user's tickets, a department's employees, …)
// for one request. It is the one mechanism behind every list:
//
//   - each distinct key is read once per request: the loader owns its cache and gets or reserves
//     a key's entry in one step under its lock, so a list started ahead (for a whole level, by
//     startAll) and the resolver that later asks for it share one read, however they interleave;
//   - keys are typed and comparable, normalised when they are built (listkeys.go), and hold the
//     plan of the list's elements (a Level), so the list started ahead and the list consumed are
//     the same key by construction;
//   - a fetcher reads the lists of a batch, one result per key, and then does what their elements
//     need (ReadAhead). The lists a level starts are one batch, dispatched at once: their lookups
//     go in one batch when every list is back. A loader with a window also gathers the keys its
//     resolvers ask for within it (sibling lists whose elements are looked up by key); without
//     one, a list its resolver asks for is read at once, on its own, and its elements' lookups
//     join the key loader's window (whole is false);
//   - a panic in a fetcher fails the waiting callers with an internal error, never blocks them.
type listLoader[K comparable, V any] struct {
	fetcher fetcher[K, V]
	// wait is the window during which keys gather into one fetch; 0 reads each key at once.
	wait time.Duration

	mu    sync.Mutex
	cache map[K]*listCall[V]
	open  *listBatch[K, V]
}

// A fetcher reads the lists of some keys, one result per key, in key order. whole says the keys
// are every list of their level (started together, or gathered by a window). A fetcher may hand a
// list to its waiting callers before the others with answer (the i-th key's result).
type fetcher[K comparable, V any] interface {
	fetch(ctx context.Context, keys []K, whole bool, answer func(i int, v V, err error)) ([]V, []error)
}

// fetchEach is a fetcher that reads each key by itself (keys arrive one at a time when the loader
// has no window): lists whose elements need nothing of their level (a parent read with its first
// page) or that are a whole level alone (a root list).
type fetchEach[K comparable, V any] func(ctx context.Context, k K) (V, error)

func (f fetchEach[K, V]) fetch(ctx context.Context, keys []K, _ bool, _ func(int, V, error)) ([]V, []error) {
	vs := make([]V, len(keys))
	errs := make([]error, len(keys))
	for i, k := range keys {
		vs[i], errs[i] = f(ctx, k)
	}
	return vs, errs
}

// fetchBatch is a fetcher that reads all the keys of a batch in one call.
type fetchBatch[K comparable, V any] func(ctx context.Context, keys []K, whole bool, answer func(int, V, error)) ([]V, []error)

func (f fetchBatch[K, V]) fetch(ctx context.Context, keys []K, whole bool, answer func(int, V, error)) ([]V, []error) {
	return f(ctx, keys, whole, answer)
}

// listCall is one key's read: done closes when v and err are set, once.
type listCall[V any] struct {
	done chan struct{}
	once sync.Once
	v    V
	err  error
}

// answer sets the call's result and releases its callers; a later answer does nothing.
func (c *listCall[V]) answer(v V, err error) {
	c.once.Do(func() {
		c.v, c.err = v, err
		close(c.done)
	})
}

func (c *listCall[V]) wait() (V, error) {
	<-c.done
	return c.v, c.err
}

// listBatch is the keys gathering in an open window.
type listBatch[K comparable, V any] struct {
	ctx   context.Context
	keys  []K
	calls []*listCall[V]
	taken bool // its keys are being read (window closed, or dispatched early)
}

func newListLoader[K comparable, V any](f fetcher[K, V], wait time.Duration) *listLoader[K, V] {
	return &listLoader[K, V]{fetcher: f, wait: wait}
}

// load reads the list of key k, or waits for the read already under way.
func (ll *listLoader[K, V]) load(ctx context.Context, k K) (V, error) {
	c, run := ll.reserve(ctx, k)
	if run {
		// No window: read it here, on the caller's goroutine, as a list of its own.
		ll.run(ctx, []K{k}, []*listCall[V]{c}, false)
	}
	return c.wait()
}

// startAll starts the reads of keys, every list of a level (the caller holds the whole level:
// the children of a page, of nodes(ids:)), without waiting for them: they are dispatched at once
// as one batch, whose elements' lookups go in one batch when every list is back. Lists already
// gathering in an open window go with them. A later load of one of the keys waits for its read.
func (ll *listLoader[K, V]) startAll(ctx context.Context, keys []K) {
	if len(keys) == 0 {
		return
	}
	ll.mu.Lock()
	b := &listBatch[K, V]{ctx: ctx}
	if open := ll.takeLocked(ll.open); open != nil {
		b.keys, b.calls = open.keys, open.calls
	}
	for _, k := range keys {
		if c, fresh := ll.reserveLocked(ctx, k, true); fresh {
			b.keys, b.calls = append(b.keys, k), append(b.calls, c)
		}
	}
	ll.mu.Unlock()
	if len(b.keys) > 0 {
		go ll.run(b.ctx, b.keys, b.calls, true)
	}
}

// reserve gets k's call or reserves one. With a window, a new call joins the open batch (opening
// one if none is), and run is false; without one, the caller must run it.
func (ll *listLoader[K, V]) reserve(ctx context.Context, k K) (c *listCall[V], run bool) {
	ll.mu.Lock()
	defer ll.mu.Unlock()
	c, fresh := ll.reserveLocked(ctx, k, false)
	return c, fresh && ll.wait <= 0
}

// reserveLocked gets k's call or reserves a fresh one. A fresh call joins the open window unless
// the caller dispatches it itself (own) or the loader has no window.
func (ll *listLoader[K, V]) reserveLocked(ctx context.Context, k K, own bool) (c *listCall[V], fresh bool) {
	if c, ok := ll.cache[k]; ok {
		return c, false
	}
	c = &listCall[V]{done: make(chan struct{})}
	if ll.cache == nil {
		ll.cache = map[K]*listCall[V]{}
	}
	ll.cache[k] = c
	if own || ll.wait <= 0 {
		return c, true
	}
	if ll.open == nil {
		b := &listBatch[K, V]{ctx: ctx}
		ll.open = b
		time.AfterFunc(ll.wait, func() { ll.flush(b) })
	}
	ll.open.keys = append(ll.open.keys, k)
	ll.open.calls = append(ll.open.calls, c)
	return c, true
}

// flush closes batch b's window and reads its keys, unless they were dispatched already.
func (ll *listLoader[K, V]) flush(b *listBatch[K, V]) {
	ll.mu.Lock()
	b = ll.takeLocked(b)
	ll.mu.Unlock()
	if b != nil {
		ll.run(b.ctx, b.keys, b.calls, true)
	}
}

// takeLocked closes batch b to new keys and hands it to its reader; nil when b is nil or already
// taken.
func (ll *listLoader[K, V]) takeLocked(b *listBatch[K, V]) *listBatch[K, V] {
	if b == nil || b.taken {
		return nil
	}
	b.taken = true
	if ll.open == b {
		ll.open = nil
	}
	return b
}

// run reads keys and answers their calls, also when the fetcher panics. whole says the keys are
// every list of their level.
func (ll *listLoader[K, V]) run(ctx context.Context, keys []K, calls []*listCall[V], whole bool) {
	ctx = repository.NextRound(ctx) // the lists' reads wait for the data their keys come from
	var (
		vs   []V
		errs []error
	)
	defer func() {
		var failed error
		if p := recover(); p != nil {
			failed = panicError("list read", p)
		}
		for i, c := range calls {
			switch {
			case failed != nil:
				c.answer(*new(V), failed)
			case i < len(vs) && i < len(errs):
				c.answer(vs[i], errs[i])
			default:
				c.answer(*new(V), apperr.Internal("loaders: list read", errors.New("the fetcher answered fewer values than keys")))
			}
		}
	}()
	vs, errs = ll.fetcher.fetch(ctx, keys, whole, func(i int, v V, err error) { calls[i].answer(v, err) })
}

// clear forgets every cached list (a mutation wrote). Reads under way finish for their callers.
func (ll *listLoader[K, V]) clear() {
	ll.mu.Lock()
	ll.cache = nil
	ll.mu.Unlock()
}
