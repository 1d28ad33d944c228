package changefeed

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"singletable/apperr"
	"singletable/repository"
)

const tracerName = "singletable/changefeed"

// restartDelay is the wait before the reader runs again after it panicked.
const restartDelay = time.Second

// runSource runs the reader until ctx ends. The reader does not stop on DynamoDB's account (it
// retries until ctx ends); should it stop or panic all the same, that is logged and counted as a
// gap (a new reader starts at the newest records), and the reader runs again: subscriptions
// survive.
func (h *Hub) runSource(ctx context.Context) {
	for {
		err := h.runOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		h.log.Error("the stream reader stopped; restarting it", "error", fmt.Sprint(err))
		h.obs.StreamGap()
		select {
		case <-ctx.Done():
			return
		case <-time.After(restartDelay):
		}
	}
}

func (h *Hub) runOnce(ctx context.Context) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return h.src.Run(ctx, repository.StreamHandler{
		Changes: h.dispatch,
		Stream:  h.streamFound,
		Polled:  h.obs.StreamRead,
		Outage:  func(err error) { h.obs.StreamOutage(err != nil) },
		Gap:     func(string, string) { h.obs.StreamGap() },
	})
}

// streamFound follows the source's news about the stream: read (subscriptions are served), or
// none (open subscriptions end with repository.ErrNoStream, or the source's own UNAVAILABLE
// error, and new ones are refused until a stream is found).
func (h *Hub) streamFound(_ string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == stateClosed {
		return
	}
	if err != nil {
		h.state, h.why = stateNoStream, repository.ErrNoStream
		if !errors.Is(err, repository.ErrNoStream) && apperr.CodeOf(err) == apperr.CodeUnavailable {
			h.why = err
		}
		for s := range h.subs {
			h.endLocked(s, h.why)
		}
		h.obs.SubscriptionsOpen(0)
		return
	}
	h.state = stateReading
	h.readyOnce.Do(func() { close(h.ready) })
}

// dispatch hands a batch of changes to every subscription whose filter accepts them, in order,
// without waiting: a subscription whose buffer is full ends with ErrOverflow. One span per
// batch records its size and what became of it.
func (h *Hub) dispatch(ctx context.Context, batch []repository.Change) {
	_, span := h.tracer.Start(ctx, "changefeed.dispatch", trace.WithAttributes(attribute.Int("changefeed.batch_size", len(batch))))
	defer span.End()
	h.mu.Lock()
	if h.state == stateClosed {
		h.mu.Unlock()
		return
	}
	subscribers := len(h.subs)
	delivered, dropped := 0, 0
	for i := range batch {
		c := &batch[i]
		for s := range h.subs {
			if !s.accepts(c) {
				continue
			}
			select {
			case s.events <- c:
				delivered++
			default:
				h.endLocked(s, ErrOverflow)
				dropped++
				h.obs.SubscriptionDropped()
			}
		}
	}
	if len(h.subs) != subscribers {
		h.obs.SubscriptionsOpen(len(h.subs))
	}
	h.mu.Unlock()
	h.obs.SubscriptionEventsDelivered(delivered)
	span.SetAttributes(attribute.Int("changefeed.subscribers", subscribers),
		attribute.Int("changefeed.delivered", delivered), attribute.Int("changefeed.dropped", dropped))
}

// accepts runs the subscription's filter. A filter that panics ends its subscription (with an
// internal error), not the reader.
func (s *Subscription) accepts(c *repository.Change) (ok bool) {
	if s.filter == nil {
		return true
	}
	defer func() {
		if p := recover(); p != nil {
			s.hub.log.Error("a subscription filter panicked; ending the subscription", "panic", fmt.Sprint(p))
			s.hub.endLocked(s, apperr.Internal("subscription filter", fmt.Errorf("panic: %v", p)))
			ok = false
		}
	}()
	return s.filter(*c)
}
