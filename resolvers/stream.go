package resolvers

import (
	"context"
	"sync"
	"time"

	"singletable/apperr"
	"singletable/auth"
	"singletable/changefeed"
	"singletable/graph/model"
	"singletable/repository/store"
	"singletable/repository/stream"
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
	// Close ends the subscription from the server's side (its principal's budget is spent): Next
	// answers at once that it is over. Call it from the goroutine that calls Next.
	Close()
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

// subscribed is subscribe of the feed an argument check returned (its error, when the check
// failed).
func subscribed[T any](ctx context.Context, repo *store.Store, hub *changefeed.Hub, after *string, convert func(*stream.Change, model.Cursored) T) func(changeFeed, error) (<-chan T, error) {
	return func(f changeFeed, err error) (<-chan T, error) {
		if err != nil {
			return nil, err
		}
		return subscribe(ctx, repo, hub, f, after, convert)
	}
}

// subscribe opens a subscription to the hub's changes f accepts, each delivered as convert
// makes it, for the caller of ctx until its token expires; the subscription ends with ctx. With
// after, it first replays f's changes after that cursor from the change log (replay.go).
func subscribe[T any](ctx context.Context, repo *store.Store, hub *changefeed.Hub, f changeFeed, after *string, convert func(*stream.Change, model.Cursored) T) (<-chan T, error) {
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
	from, err := openAfter(ctx, repo, f, after)
	if err != nil {
		return nil, err
	}
	if err := awaitReader(ctx, hub); err != nil {
		return nil, err
	}
	head, err := logHead(ctx, repo, hub, after)
	if err != nil {
		return nil, err
	}
	// Subscribed before the replay's first Query: a change the reader dispatches from now on
	// is in the buffer, one dispatched before is in the log already (the reader appends first).
	sub, err := hub.Subscribe(caller.Subject, f.filter)
	if err != nil {
		return nil, err
	}
	s := &liveStream[T]{sub: sub, hub: hub, caller: caller, repo: repo, feed: f, convert: convert, out: make(chan T, 1), pos: startOf(sub, head)}
	if after != nil {
		s.pos, s.replay = from, &replay{read: from.Position, more: true}
	}
	if !caller.ValidUntil.IsZero() {
		s.expiry = time.NewTimer(time.Until(caller.ValidUntil))
	}
	context.AfterFunc(ctx, s.close)
	slot.mu.Lock()
	slot.stream = s
	slot.mu.Unlock()
	return s.out, nil
}

// logHead is the change log's head, read before a subscription without `after` opens on a hub
// that has dispatched nothing yet (the zero position otherwise): where it resumes from should it
// end before it delivered anything (startOf).
func logHead(ctx context.Context, repo *store.Store, hub *changefeed.Hub, after *string) (stream.ChangePosition, error) {
	if after != nil || hub.Dispatched() {
		return stream.ChangePosition{}, nil
	}
	return repo.ChangeLogHead(ctx)
}

// startOf is where a subscription without `after` starts: the hub's last position when it
// opened, or the log's head read before it opened when that is later (or the hub had none).
// Every change after it that the subscription accepts is one the hub dispatched to it after it
// opened, or one it would have: the hub dispatches in the order of the positions, and a change
// appended before the head was read but dispatched after the subscription opened is in its
// buffer, delivered before its end is told.
func startOf(sub *changefeed.Subscription, head stream.ChangePosition) stream.ChangePosition {
	start := sub.Start()
	if start.Logged.IsZero() || start.Position < head.Position {
		return head
	}
	return start
}

// readerWait bounds how long a subscription opened before the hub reads the stream (the first
// seconds of an instance) waits for it: until then a write could be missed, so the subscription
// opens only once the reader is there, or is told to retry.
const readerWait = 10 * time.Second

var errNotReading = apperr.New(apperr.CodeUnavailable, "the table's stream is not read yet; subscribe again in a moment")

// awaitReader waits until hub reads the stream, at most readerWait: a subscription opened before
// would miss the writes made until then.
func awaitReader(ctx context.Context, hub *changefeed.Hub) error {
	if err := hub.Available(); err != nil {
		return err
	}
	timer := time.NewTimer(readerWait)
	defer timer.Stop()
	select {
	case <-hub.Ready():
		return nil
	case <-timer.C:
		return errNotReading
	case <-ctx.Done():
		return errNotReading
	}
}

var errNoSlot = apperr.New(apperr.CodeInternal, "no event stream slot: the server did not call WithEventStream")

// liveStream is an EventStream of events of type T.
type liveStream[T any] struct {
	sub     *changefeed.Subscription
	hub     *changefeed.Hub
	caller  auth.Principal
	repo    *store.Store
	feed    changeFeed
	convert func(*stream.Change, model.Cursored) T
	// replay is the replay still to deliver (nil: none, or done).
	replay *replay
	// pos is the position of the last change delivered (or of the client's cursor, or where
	// the subscription started: startOf): the cursor an ended subscription resumes from.
	pos    stream.ChangePosition
	out    chan T
	expiry *time.Timer // nil: the caller's token does not expire
	// over is set once Next has said the subscription is over: its error is told once, and every
	// later call answers at once that there is nothing more (gqlgen asks again after the error).
	over bool
}

func (s *liveStream[T]) Next(ctx context.Context) (bool, error) {
	if s.over {
		return false, nil
	}
	ok, err := s.next(ctx)
	s.over = !ok
	return ok, err
}

func (s *liveStream[T]) next(ctx context.Context) (bool, error) {
	if s.replay != nil {
		c, err := s.replayed(ctx)
		if err != nil {
			s.close()
			return false, err
		}
		if c != nil {
			return s.emit(ctx, c)
		}
	}
	var expired <-chan time.Time
	if s.expiry != nil {
		expired = s.expiry.C
	}
	for {
		select {
		case c, open := <-s.sub.Events():
			if !open {
				return false, s.ended(s.sub.Err())
			}
			if s.seenInReplay(c) {
				continue
			}
			if s.caller.Expired(time.Now()) {
				s.close()
				return false, errTokenExpired
			}
			return s.emit(ctx, c)
		case <-expired:
			s.close()
			return false, errTokenExpired
		case <-ctx.Done():
			return false, nil
		}
	}
}

// emit converts c into its event, with its cursor, and hands it to gqlgen.
func (s *liveStream[T]) emit(ctx context.Context, c *stream.Change) (bool, error) {
	s.pos = stream.ChangePosition{Position: c.Position, Logged: c.Logged}
	select {
	case s.out <- s.convert(c, model.Cursored{Position: s.repo.ChangeCursor(s.feed.scope, c)}):
		return true, nil
	case <-ctx.Done():
		return false, nil
	}
}

func (s *liveStream[T]) Close() {
	s.close()
	s.over = true
}

// close ends the hub's subscription and stops the timer; it may be called more than once.
func (s *liveStream[T]) close() {
	s.sub.Close()
	if s.expiry != nil {
		s.expiry.Stop()
	}
}
