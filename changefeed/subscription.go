package changefeed

import (
	"sync"
	"time"

	"singletable/repository/stream"
)

// Subscription is one subscriber's view of the changes: a channel with a bounded buffer.
type Subscription struct {
	hub    *Hub
	owner  string
	filter func(stream.Change) bool
	events chan *stream.Change
	// done is closed when the subscription ends, before events: a dispatcher waiting for buffer
	// space (holding sendMu) lets go, and only then does events close.
	done   chan struct{}
	sendMu sync.Mutex
	// start is the hub's last position when the subscription opened (zero before the hub
	// dispatched any change): every change after it is the subscription's to filter.
	start stream.ChangePosition
	// ended and err are guarded by the hub's lock.
	ended bool
	err   error
}

// Events delivers the subscription's changes, in the order the reader read them (the changes of
// one item in the order of its writes). A change is shared with the other subscriptions that
// receive it: read it, never change it. The channel closes when the subscription ends; Err says
// why.
func (s *Subscription) Events() <-chan *stream.Change { return s.events }

// Err is why the subscription ended: nil while it is open, and when it was completed (Close of
// the subscription or of the hub); ErrSlow when its client did not keep up; ErrGap when changes
// may have been missed; repository.ErrNoStream when the table's stream went away.
func (s *Subscription) Err() error {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return s.err
}

// Start is the position of the last change dispatched before the subscription opened (zero,
// Logged too, when none was): a client that resumes after it misses nothing the subscription
// would have delivered.
func (s *Subscription) Start() stream.ChangePosition { return s.start }

// Close ends the subscription (its client went away): its channel closes, with no error. It may
// be called more than once, and after the subscription ended otherwise.
func (s *Subscription) Close() {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.ended {
		return
	}
	h.endLocked(s, nil)
	h.obs.SubscriptionsOpen(len(h.subs))
}

// offer hands c to the subscription if its buffer has room, without waiting; false when it is
// full. An ended subscription takes nothing (true: nothing is left to hand it).
func (s *Subscription) offer(c *stream.Change) bool {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	select {
	case <-s.done:
		return true
	default:
	}
	select {
	case s.events <- c:
		return true
	default:
		return false
	}
}

// push hands the changes to the subscription in order, waiting for buffer space, at most wait
// for each: it returns how many it took, and slow when the subscriber took none for wait.
func (s *Subscription) push(changes []*stream.Change, wait time.Duration) (taken int, slow bool) {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for _, c := range changes {
		select {
		case s.events <- c:
			taken++
			timer.Reset(wait)
		case <-s.done:
			return taken, false
		case <-timer.C:
			return taken, true
		}
	}
	return taken, false
}
