package changefeed

import "singletable/repository"

// Subscription is one subscriber's view of the changes: a channel with a bounded buffer.
type Subscription struct {
	hub    *Hub
	filter func(repository.Change) bool
	events chan *repository.Change
	// ended and err are guarded by the hub's lock.
	ended bool
	err   error
}

// Events delivers the subscription's changes, in the order the reader read them (the changes of
// one item in the order of its writes). A change is shared with the other subscriptions that
// receive it: read it, never change it. The channel closes when the subscription ends; Err says
// why.
func (s *Subscription) Events() <-chan *repository.Change { return s.events }

// Err is why the subscription ended: nil while it is open, and when it was completed (Close of
// the subscription or of the hub); ErrOverflow when its client did not keep up;
// repository.ErrNoStream when the table's stream went away.
func (s *Subscription) Err() error {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return s.err
}

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
