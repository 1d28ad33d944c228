package changefeed

import "time"

// Observer is told what the hub and its reader do; the server's metrics hang on it (package
// telemetry implements it), as they hang on repository.CallObserver. Its methods are called from
// the hub's goroutines, some while the hub's lock is held: they must be safe for concurrent use
// and quick, and must not call the hub.
type Observer interface {
	// SubscriptionsOpen reports how many subscriptions are open, whenever that changes.
	SubscriptionsOpen(n int)
	// SubscriptionEventsDelivered counts changes handed to subscriptions (one per subscription
	// that received it).
	SubscriptionEventsDelivered(n int)
	// SubscriptionDropped counts a subscription ended because its buffer was full.
	SubscriptionDropped()
	// StreamRead follows every successful read of the stream: the records read (entities or
	// not) and the lag, the age of the newest record the slowest shard has read (0 when caught
	// up).
	StreamRead(records int, lag time.Duration)
	// StreamOutage reports that the stream cannot be read (down) or can again (!down).
	StreamOutage(down bool)
	// StreamGap counts a point where changes may have been missed (trimmed data, a shard gone,
	// the reader restarted).
	StreamGap()
}

type nopObserver struct{}

func (nopObserver) SubscriptionsOpen(int)           {}
func (nopObserver) SubscriptionEventsDelivered(int) {}
func (nopObserver) SubscriptionDropped()            {}
func (nopObserver) StreamRead(int, time.Duration)   {}
func (nopObserver) StreamOutage(bool)               {}
func (nopObserver) StreamGap()                      {}
