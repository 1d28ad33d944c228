package loaders

import (
	"context"
	"errors"
	"sync"
	"time"

	"singletable/apperr"
)

// A listLoader runs the list reads of one kind (a user's tickets, a department's employees, …)
// for one request. It is the one mechanism behind every list:
//
//   - each distinct key is read once per request: the loader owns its cache and gets or reserves
//     a key's entry in one step under its lock, so a list started ahead (StartEmployeesOfDepartments)
//     and the resolver that later asks for it share one read, however they interleave;
//   - keys are typed and comparable, normalised when they are built (listkeys.go), so the list
//     started ahead and the list consumed are the same key by construction;
//   - a fetcher reads the lists. A fetcher with a window gathers the keys that arrive within it
//     and reads them in one call: the lists of one level whose elements need lookups (employees
//     named by relation items, items of status-filtered orders) are read together, and their
//     lookups sent as one batch when every Query is back. A fetcher without a window reads each key
//     at once, on its own;
//   - a panic in a fetcher fails the waiting callers with an internal error, never blocks them.
type listLoader[K comparable, V any] struct {
	fetcher fetcher[K, V]
	// wait is the window during which keys gather into one fetch; 0 reads each key at once.
	wait time.Duration
	// uncached reads every request on its own (the baseline, Options.Baseline).
	uncached bool

	mu    sync.Mutex
	cache map[K]*listCall[V]
	open  *listBatch[K, V]
}

// A fetcher reads the lists of some keys, one result per key, in key order.
type fetcher[K comparable, V any] interface {
	fetch(ctx context.Context, keys []K) ([]V, []error)
}

// fetchEach is a fetcher that reads each key by itself (keys arrive one at a time when the loader
// has no window).
type fetchEach[K comparable, V any] func(ctx context.Context, k K) (V, error)

func (f fetchEach[K, V]) fetch(ctx context.Context, keys []K) ([]V, []error) {
	vs := make([]V, len(keys))
	errs := make([]error, len(keys))
	for i, k := range keys {
		vs[i], errs[i] = f(ctx, k)
	}
	return vs, errs
}

// fetchBatch is a fetcher that reads all the keys of a batch in one call.
type fetchBatch[K comparable, V any] func(ctx context.Context, keys []K) ([]V, []error)

func (f fetchBatch[K, V]) fetch(ctx context.Context, keys []K) ([]V, []error) { return f(ctx, keys) }

// listCall is one key's read: done closes when v and err are set.
type listCall[V any] struct {
	done chan struct{}
	v    V
	err  error
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

func newListLoader[K comparable, V any](f fetcher[K, V], wait time.Duration, uncached bool) *listLoader[K, V] {
	return &listLoader[K, V]{fetcher: f, wait: wait, uncached: uncached}
}

// load reads the list of key k, or waits for the read already under way.
func (ll *listLoader[K, V]) load(ctx context.Context, k K) (V, error) {
	c, run := ll.reserve(ctx, k)
	if run {
		ll.run(ctx, []K{k}, []*listCall[V]{c}) // no window: read it here, on the caller's goroutine
	}
	return c.wait()
}

// start starts the read of k without waiting for it (a parent holding all the lists of a level
// starts them in one loop); a later load of k waits for it.
func (ll *listLoader[K, V]) start(ctx context.Context, k K) {
	if ll.uncached {
		return // nothing would find it
	}
	if c, run := ll.reserve(ctx, k); run {
		go ll.run(ctx, []K{k}, []*listCall[V]{c})
	}
}

// startAll starts the reads of keys. With wholeLevel the caller holds every list of its level
// (the departments of nodes(ids:)) and they are dispatched at once: no other list of that level
// will join, so waiting out the window would only delay the level (lists already gathering in an
// open window go with them). Otherwise they join the window like any other.
func (ll *listLoader[K, V]) startAll(ctx context.Context, keys []K, wholeLevel bool) {
	if ll.uncached || len(keys) == 0 {
		return
	}
	if ll.wait <= 0 || !wholeLevel {
		for _, k := range keys {
			ll.start(ctx, k)
		}
		return
	}
	ll.mu.Lock()
	for _, k := range keys {
		ll.reserveLocked(ctx, k)
	}
	b := ll.takeLocked(ll.open)
	ll.mu.Unlock()
	if b != nil {
		go ll.run(b.ctx, b.keys, b.calls)
	}
}

// reserve gets k's call or reserves one. With a window, a new call joins the open batch (opening
// one if none is), and run is false; without one, the caller must run it.
func (ll *listLoader[K, V]) reserve(ctx context.Context, k K) (c *listCall[V], run bool) {
	ll.mu.Lock()
	defer ll.mu.Unlock()
	return ll.reserveLocked(ctx, k)
}

func (ll *listLoader[K, V]) reserveLocked(ctx context.Context, k K) (c *listCall[V], run bool) {
	if c, ok := ll.cache[k]; ok {
		return c, false
	}
	c = &listCall[V]{done: make(chan struct{})}
	if !ll.uncached {
		if ll.cache == nil {
			ll.cache = map[K]*listCall[V]{}
		}
		ll.cache[k] = c
	}
	if ll.wait <= 0 {
		return c, true
	}
	if ll.open == nil {
		b := &listBatch[K, V]{ctx: ctx}
		ll.open = b
		time.AfterFunc(ll.wait, func() { ll.flush(b) })
	}
	ll.open.keys = append(ll.open.keys, k)
	ll.open.calls = append(ll.open.calls, c)
	return c, false
}

// flush closes batch b's window and reads its keys, unless they were dispatched already.
func (ll *listLoader[K, V]) flush(b *listBatch[K, V]) {
	ll.mu.Lock()
	b = ll.takeLocked(b)
	ll.mu.Unlock()
	if b != nil {
		ll.run(b.ctx, b.keys, b.calls)
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

// run reads keys and answers their calls, also when the fetcher panics.
func (ll *listLoader[K, V]) run(ctx context.Context, keys []K, calls []*listCall[V]) {
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
				c.err = failed
			case i < len(vs) && i < len(errs):
				c.v, c.err = vs[i], errs[i]
			default:
				c.err = apperr.Internal("loaders: list read", errors.New("the fetcher answered fewer values than keys"))
			}
			close(c.done)
		}
	}()
	vs, errs = ll.fetcher.fetch(ctx, keys)
}

// clear forgets every cached list (a mutation wrote). Reads under way finish for their callers.
func (ll *listLoader[K, V]) clear() {
	ll.mu.Lock()
	ll.cache = nil
	ll.mu.Unlock()
}
