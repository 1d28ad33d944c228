package resolvers

import (
	"context"
	"sync"
	"time"

	"singletable/apperr"
	"singletable/auth"
	"singletable/changefeed"
	"singletable/repository"
)

// How a subscription's events reach the client. gqlgen takes a channel from a subscription
// resolver and, for each response, waits on it and resolves the event's selection with the context
// of that response. The server gives every event a context of its own (fresh loaders, a fresh
// cost meter, a time limit: an event is resolved like a query of its own, and a subscription that
// lives for hours never grows a cache or serves a stale one), and it can only do so once the event
// is there. So no goroutine forwards the hub's changes to the channel: the server waits for the
// next change itself (EventStream.Next, which converts it and puts its event into the channel),
// builds the event's context, and lets gqlgen take the event from the channel at once. An idle
// subscription is then its hub buffer, a channel of one event and a timer, with no goroutine of
// its own.

// EventStream is an open subscription, driven by the server.
type EventStream interface {
	// Next waits for the subscription's next event and puts it into the channel the resolver
	// returned, for gqlgen to take at once; ok is false when the subscription is over: completed
	// (err nil: the client went away, the server is shutting down) or ended with err (the client
	// did not keep up, the table lost its stream, the caller's token expired).
	Next(ctx context.Context) (ok bool, err error)
}

// streamSlot is where a subscription resolver leaves its EventStream for the server.
type streamSlot struct {
	mu     sync.Mutex
	stream EventStream
}

type streamSlotKey struct{}

// WithEventStream returns ctx with an empty slot for the EventStream of the subscription the
// operation of ctx opens. The server calls it around every subscription operation.
func WithEventStream(ctx context.Context) context.Context {
	return context.WithValue(ctx, streamSlotKey{}, &streamSlot{})
}

// EventStreamOf is the EventStream the subscription of ctx opened. isSubscription is false for an
// operation WithEventStream was not called for; stream is nil while (or because) the subscription
// did not open: its resolver refused it.
func EventStreamOf(ctx context.Context) (stream EventStream, isSubscription bool) {
	slot, ok := ctx.Value(streamSlotKey{}).(*streamSlot)
	if !ok {
		return nil, false
	}
	slot.mu.Lock()
	defer slot.mu.Unlock()
	return slot.stream, true
}

// errTokenExpired ends a subscription whose caller's token is no longer accepted.
var errTokenExpired = apperr.New(apperr.CodeUnauthenticated, "the token has expired: subscribe again with a new one")

// subscribe opens a subscription to the hub's changes filter accepts, each delivered as convert
// makes it, for the caller of ctx until its token expires; the subscription ends with ctx.
func subscribe[T any](ctx context.Context, hub *changefeed.Hub, filter func(repository.Change) bool, convert func(*repository.Change) T) (<-chan T, error) {
	if hub == nil {
		return nil, errNoHub
	}
	caller := auth.Caller(ctx)
	if caller.Expired(time.Now()) {
		return nil, errTokenExpired
	}
	slot, ok := ctx.Value(streamSlotKey{}).(*streamSlot)
	if !ok {
		return nil, apperr.Internal("subscribe", errNoSlot)
	}
	sub, err := hub.Subscribe(filter)
	if err != nil {
		return nil, err
	}
	s := &stream[T]{sub: sub, caller: caller, convert: convert, out: make(chan T, 1)}
	if !caller.ValidUntil.IsZero() {
		s.expiry = time.NewTimer(time.Until(caller.ValidUntil))
	}
	context.AfterFunc(ctx, s.close)
	slot.mu.Lock()
	slot.stream = s
	slot.mu.Unlock()
	return s.out, nil
}

var errNoSlot = apperr.New(apperr.CodeInternal, "no event stream slot: the server did not call WithEventStream")

// stream is an EventStream of events of type T.
type stream[T any] struct {
	sub     *changefeed.Subscription
	caller  auth.Principal
	convert func(*repository.Change) T
	out     chan T
	expiry  *time.Timer // nil: the caller's token does not expire
	errSent bool        // the error the subscription ended with was answered
}

func (s *stream[T]) Next(ctx context.Context) (bool, error) {
	var expired <-chan time.Time
	if s.expiry != nil {
		expired = s.expiry.C
	}
	select {
	case c, open := <-s.sub.Events():
		if !open {
			// The error once: gqlgen asks again after an error response, and then the
			// subscription completes.
			err := s.sub.Err()
			if s.errSent {
				err = nil
			}
			s.errSent = true
			return false, err
		}
		if s.caller.Expired(time.Now()) {
			s.close()
			return false, errTokenExpired
		}
		select {
		case s.out <- s.convert(c):
			return true, nil
		case <-ctx.Done():
			return false, nil
		}
	case <-expired:
		s.close()
		return false, errTokenExpired
	case <-ctx.Done():
		return false, nil
	}
}

// close ends the hub's subscription and stops the timer; it may be called more than once.
func (s *stream[T]) close() {
	s.sub.Close()
	if s.expiry != nil {
		s.expiry.Stop()
	}
}
