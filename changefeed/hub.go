// Package changefeed fans the table's changes out to subscribers: ONE source of changes per
// instance (its reader of the table's stream, or in a fleet the changes one reader publishes for
// all: package fleet), however many subscriptions are open, each subscription with a bounded buffer of its
// own. It sits between the repository (its stream reader and Change type) and the GraphQL
// subscriptions, which filter the changes by what their caller may see; it knows nothing of
// GraphQL, transports or identity.
//
// Dispatch waits for a subscriber whose buffer is full, a bounded time and without the hub's
// lock: a client that reads as fast as changes come is never dropped by a burst (a bulk import of
// hundreds of items), and only one that takes no change for Options.SlowAfter ends, with ErrSlow,
// while the others carry on. Memory is bounded by the buffers and by the batch being dispatched:
// an idle subscription costs its channel of Buffer pointers and a few words, and nothing grows
// with time.
package changefeed

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"singletable/apperr"
	"singletable/repository/stream"
)

// DefaultBuffer is how many changes a subscription holds for a client that is busy: a burst of
// writes to one organization (a bulk import, say) fits, while a client that stopped reading is
// found out after a few dozen changes rather than holding memory for thousands.
const DefaultBuffer = 64

// DefaultSlowAfter is how long dispatch waits for a subscriber to take a change once its buffer
// is full: far more than a client that keeps reading needs to take one, even on a busy machine
// (at 2 s, 4 of 100 subscribers reading in the same process as the server were dropped once
// while other work held both cores), and short enough that the other subscriptions, whose next
// batch waits meanwhile, are late by seconds only while a client that stopped reading is found.
const DefaultSlowAfter = 5 * time.Second

// Reasons a subscription ends with (extensions.reason): the client stayed behind, or changes
// were missed and the client must refetch.
const (
	ReasonSlow = "slow"
	ReasonGap  = "gap"
	// ReasonDrain: the server is shutting down (a deploy); resume on another instance.
	ReasonDrain = "drain"
)

// The errors a subscription can end with, and Subscribe can return (the stream's absence is
// repository.ErrNoStream). All are UNAVAILABLE: the client may subscribe again, here later or on
// another instance.
var (
	ErrSlow = &apperr.Error{Code: apperr.CodeUnavailable, Reason: ReasonSlow,
		Message: "subscription ended: the client did not keep up with the changes; subscribe again"}
	ErrGap = &apperr.Error{Code: apperr.CodeUnavailable, Reason: ReasonGap,
		Message: "subscription ended: changes may have been missed; refetch, then subscribe again"}
	// ErrDrained is what the server tells a subscription the hub completed as it shut down,
	// with the cursor to resume from.
	ErrDrained = &apperr.Error{Code: apperr.CodeUnavailable, Reason: ReasonDrain,
		Message: "subscription ended: the server is shutting down; subscribe again with after: the cursor given"}
	ErrShuttingDown = apperr.New(apperr.CodeUnavailable, "subscriptions are unavailable: the server is shutting down")
	ErrTooMany      = apperr.New(apperr.CodeUnavailable, "this server has as many subscriptions open as it serves; retry later")
	// ErrTooManyOfOwner refuses a subscription past Options.MaxPerOwner: RATE_LIMITED, since it
	// is the caller's own use that is over its share (another instance would refuse it the same
	// way once its other subscriptions are spread there), not the server that is short.
	ErrTooManyOfOwner = &apperr.Error{Code: apperr.CodeRateLimited, Limit: "subscriptions",
		Message: "this client has as many subscriptions open as one client may; complete one first"}
)

// Source is where the hub gets changes: the repository's StreamReader.
type Source interface {
	Run(ctx context.Context, h stream.StreamHandler) error
}

// Options configure a Hub; zero values take the defaults.
type Options struct {
	// Buffer is the number of changes each subscription can hold (DefaultBuffer).
	Buffer int
	// MaxSubscriptions caps the subscriptions open at once: past it Subscribe returns ErrTooMany
	// (zero: no cap). Each costs its buffer here and, above all, its transport's connection and
	// goroutines in the server: the cap is what keeps an instance's memory bounded.
	MaxSubscriptions int
	// MaxPerOwner caps the subscriptions one owner (a principal) holds at once: past it Subscribe
	// returns ErrTooManyOfOwner (zero: no cap).
	MaxPerOwner int
	// SlowAfter is how long dispatch waits for a subscriber with a full buffer to take a change
	// before it ends that subscription with ErrSlow (DefaultSlowAfter).
	SlowAfter time.Duration
	// TracerProvider receives a span per dispatched batch (the global provider when nil).
	TracerProvider trace.TracerProvider
	// Logger receives the hub's few messages (slog.Default when nil).
	Logger *slog.Logger
}

// state is where the hub is in its life.
type state int

const (
	// stateStarting: the reader has not found the stream yet; subscriptions are accepted and
	// get the changes read once it has.
	stateStarting state = iota
	stateReading
	stateNoStream
	stateClosed
)

// Hub is the fan-out. It is safe for concurrent use.
type Hub struct {
	src    Source
	obs    Observer
	buffer int
	max    int
	perOwn int
	slow   time.Duration
	tracer trace.Tracer
	log    *slog.Logger

	mu   sync.Mutex
	subs map[*Subscription]struct{}
	// last is the position of the last change dispatched (snapshot): a subscription opened now
	// gets every change after it, which makes it the subscription's resume point until it
	// delivers one (Subscription.Start).
	last   stream.ChangePosition
	owners map[string]int
	state  state
	// why is what Subscribe answers in stateNoStream: repository.ErrNoStream, or the source's
	// own reason (a fleet's Redis out of reach).
	why       error
	ready     chan struct{}
	readyOnce sync.Once

	startOnce sync.Once
	cancel    context.CancelFunc
	done      chan struct{}
	// closed is closed by Close (Done).
	closed    chan struct{}
	closeOnce sync.Once
}

// New returns a hub reading src, reporting to obs (nil: nowhere). It reads nothing before Start.
func New(src Source, obs Observer, opts Options) *Hub {
	if obs == nil {
		obs = nopObserver{}
	}
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultBuffer
	}
	if opts.SlowAfter <= 0 {
		opts.SlowAfter = DefaultSlowAfter
	}
	tp := opts.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Hub{
		src: src, obs: obs, buffer: opts.Buffer, max: opts.MaxSubscriptions, perOwn: opts.MaxPerOwner, slow: opts.SlowAfter,
		tracer: tp.Tracer(tracerName), log: opts.Logger, subs: map[*Subscription]struct{}{}, owners: map[string]int{}, ready: make(chan struct{}), done: make(chan struct{}), closed: make(chan struct{}),
	}
}

// Start starts the reader; it runs until ctx ends or Close. Later calls, and calls after Close,
// do nothing.
func (h *Hub) Start(ctx context.Context) {
	h.startOnce.Do(func() {
		ctx, h.cancel = context.WithCancel(ctx)
		go func() {
			defer close(h.done)
			h.runSource(ctx)
		}()
	})
}

// Ready is closed once the reader reads the stream: every write from then on reaches the
// subscriptions open when it is read.
func (h *Hub) Ready() <-chan struct{} { return h.ready }

// Done is closed when Close is called: the server closes its subscriptions' connections once the
// subscriptions completed.
func (h *Hub) Done() <-chan struct{} { return h.closed }

// Dispatched says the hub has dispatched a change: from then on a subscription's Start is the
// last change dispatched before it opened.
func (h *Hub) Dispatched() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.last.Logged.IsZero()
}

// Subscriptions is the number of subscriptions open.
func (h *Hub) Subscriptions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Available returns nil when subscriptions can be served (the stream is read, or not found yet),
// or the error Subscribe returns: repository.ErrNoStream, ErrShuttingDown (ErrTooMany is
// Subscribe's alone).
func (h *Hub) Available() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.availableLocked()
}

func (h *Hub) availableLocked() error {
	switch h.state {
	case stateNoStream:
		return h.why
	case stateClosed:
		return ErrShuttingDown
	}
	return nil
}

// Subscribe opens a subscription of owner (the principal it counts against, Options.MaxPerOwner)
// to the changes filter accepts (all of them when filter is nil). filter runs on a dispatching
// goroutine for every change: it must be quick and must not call the hub.
func (h *Hub) Subscribe(owner string, filter func(stream.Change) bool) (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.availableLocked(); err != nil {
		return nil, err
	}
	if h.max > 0 && len(h.subs) >= h.max {
		return nil, ErrTooMany
	}
	if h.perOwn > 0 && h.owners[owner] >= h.perOwn {
		return nil, ErrTooManyOfOwner
	}
	s := &Subscription{hub: h, owner: owner, filter: filter, events: make(chan *stream.Change, h.buffer), done: make(chan struct{}), start: h.last}
	h.subs[s] = struct{}{}
	h.owners[owner]++
	h.obs.SubscriptionsOpen(len(h.subs))
	return s, nil
}

// Close stops the reader and completes every open subscription: their channels close, with no
// error, once the changes already in their buffers are read. Subscribe then returns
// ErrShuttingDown. Close waits for the reader to stop; it may be called more than once.
func (h *Hub) Close() {
	h.mu.Lock()
	h.state = stateClosed
	h.mu.Unlock()
	h.closeOnce.Do(func() { close(h.closed) })
	h.startOnce.Do(func() { close(h.done) }) // never started: nothing to stop, and no Start after
	if h.cancel != nil {
		h.cancel()
	}
	<-h.done
	h.endAll(nil)
}

// endAll ends every open subscription with err.
func (h *Hub) endAll(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		h.endLocked(s, err)
	}
	h.obs.SubscriptionsOpen(0)
}

// end ends one subscription with err (endLocked) and reports the subscriptions left.
func (h *Hub) end(s *Subscription, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !s.ended {
		h.endLocked(s, err)
		h.obs.SubscriptionsOpen(len(h.subs))
	}
}

// endLocked ends one subscription: why, then its channel closes, once a dispatcher waiting to
// hand it a change has seen done and let go of it.
func (h *Hub) endLocked(s *Subscription, err error) {
	if s.ended {
		return
	}
	s.ended, s.err = true, err
	delete(h.subs, s)
	if h.owners[s.owner]--; h.owners[s.owner] <= 0 {
		delete(h.owners, s.owner)
	}
	close(s.done)
	s.sendMu.Lock()
	close(s.events)
	s.sendMu.Unlock()
}
