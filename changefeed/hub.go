// Package changefeed fans the table's changes out to subscribers: ONE source of changes per
// instance (its reader of the table's stream, or in a fleet the changes one reader publishes for
// all: package fleet), however many subscriptions are open, each subscription with a bounded buffer of its
// own. It sits between the repository (its stream reader and Change type) and the GraphQL
// subscriptions, which filter the changes by what their caller may see; it knows nothing of
// GraphQL, transports or identity.
//
// Dispatch never waits for a subscriber: a subscription whose buffer is full ends with
// ErrOverflow, and the others carry on. Memory is bounded by the buffers: an idle subscription
// costs its channel of Buffer pointers and a few words, and nothing grows with time.
package changefeed

import (
	"context"
	"log/slog"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"singletable/apperr"
	"singletable/repository"
)

// DefaultBuffer is how many changes a subscription holds for a client that is busy: a burst of
// writes to one organization (a bulk import, say) fits, while a client that stopped reading is
// found out after a few dozen changes rather than holding memory for thousands.
const DefaultBuffer = 64

// The errors a subscription can end with, and Subscribe can return (the stream's absence is
// repository.ErrNoStream). All are UNAVAILABLE: the client may subscribe again, here later or on
// another instance.
var (
	ErrOverflow     = apperr.New(apperr.CodeUnavailable, "subscription ended: the client did not keep up")
	ErrShuttingDown = apperr.New(apperr.CodeUnavailable, "subscriptions are unavailable: the server is shutting down")
	ErrTooMany      = apperr.New(apperr.CodeUnavailable, "this server has as many subscriptions open as it serves; retry later")
)

// Source is where the hub gets changes: the repository's StreamReader.
type Source interface {
	Run(ctx context.Context, h repository.StreamHandler) error
}

// Options configure a Hub; zero values take the defaults.
type Options struct {
	// Buffer is the number of changes each subscription can hold (DefaultBuffer).
	Buffer int
	// MaxSubscriptions caps the subscriptions open at once: past it Subscribe returns ErrTooMany
	// (zero: no cap). Each costs its buffer here and, above all, its transport's connection and
	// goroutines in the server: the cap is what keeps an instance's memory bounded.
	MaxSubscriptions int
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
	tracer trace.Tracer
	log    *slog.Logger

	mu    sync.Mutex
	subs  map[*Subscription]struct{}
	state state
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
	tp := opts.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Hub{
		src: src, obs: obs, buffer: opts.Buffer, max: opts.MaxSubscriptions, tracer: tp.Tracer(tracerName), log: opts.Logger,
		subs: map[*Subscription]struct{}{}, ready: make(chan struct{}), done: make(chan struct{}), closed: make(chan struct{}),
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

// Subscribe opens a subscription to the changes filter accepts (all of them when filter is nil).
// filter runs on the dispatching goroutine for every change while the hub's lock is held: it
// must be quick and must not call the hub.
func (h *Hub) Subscribe(filter func(repository.Change) bool) (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.availableLocked(); err != nil {
		return nil, err
	}
	if h.max > 0 && len(h.subs) >= h.max {
		return nil, ErrTooMany
	}
	s := &Subscription{hub: h, filter: filter, events: make(chan *repository.Change, h.buffer)}
	h.subs[s] = struct{}{}
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

// endLocked ends one subscription: why, then its channel closes.
func (h *Hub) endLocked(s *Subscription, err error) {
	if s.ended {
		return
	}
	s.ended, s.err = true, err
	delete(h.subs, s)
	close(s.events)
}
