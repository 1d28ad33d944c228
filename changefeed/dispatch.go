package changefeed

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/stream"
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
		h.gap()
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
	return h.src.Run(ctx, stream.StreamHandler{
		Changes: h.dispatch,
		Stream:  h.streamFound,
		Polled:  h.obs.StreamRead,
		Outage:  func(err error) { h.obs.StreamOutage(err != nil) },
		Gap:     func(string, string) { h.gap() },
	})
}

// gap ends every open subscription with ErrGap: the changes missed may be of any of them, and a
// client told so refetches, where one left open would show a silent hole.
func (h *Hub) gap() {
	h.obs.StreamGap()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == stateClosed {
		return
	}
	for s := range h.subs {
		h.endLocked(s, ErrGap)
	}
	h.obs.SubscriptionsOpen(0)
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

// dispatch hands a batch of changes to every subscription whose filter accepts them, in order.
// A subscription whose buffer is full gets the rest of its changes of the batch once it makes
// room (deliverLate): dispatch waits for it, without the hub's lock, and ends it with ErrSlow only
// if it takes no change for the hub's SlowAfter. The wait holds the reader of this shard, which is
// the back-pressure that keeps memory bounded: nothing is queued beyond the buffers and the batch.
// One span per batch records its size and what became of it.
func (h *Hub) dispatch(ctx context.Context, batch []stream.Change) {
	if len(batch) == 0 {
		return
	}
	_, span := h.tracer.Start(ctx, "changefeed.dispatch", trace.WithAttributes(attribute.Int("changefeed.batch_size", len(batch))))
	defer span.End()
	subs := h.snapshot(&batch[len(batch)-1])
	if subs == nil {
		return
	}
	delivered := 0
	var late map[*Subscription][]*stream.Change
	for i := range batch {
		c := &batch[i]
		for _, s := range subs {
			if !s.accepts(c) {
				continue
			}
			if _, behind := late[s]; !behind && s.offer(c) {
				delivered++
				continue
			}
			if late == nil {
				late = map[*Subscription][]*stream.Change{}
			}
			late[s] = append(late[s], c)
		}
	}
	taken, dropped := h.deliverLate(late)
	h.obs.SubscriptionEventsDelivered(delivered + taken)
	span.SetAttributes(attribute.Int("changefeed.subscribers", len(subs)),
		attribute.Int("changefeed.delivered", delivered+taken), attribute.Int("changefeed.dropped", dropped))
}

// snapshot is the subscriptions open now, nil once the hub is closed; newest, the batch's last
// change, becomes the hub's last position: the subscriptions opened from now on get none of the
// batch.
func (h *Hub) snapshot(newest *stream.Change) []*Subscription {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == stateClosed {
		return nil
	}
	h.last = stream.ChangePosition{Position: newest.Position, Logged: newest.Logged}
	subs := make([]*Subscription, 0, len(h.subs))
	for s := range h.subs {
		subs = append(subs, s)
	}
	return subs
}

// deliverLate waits, for all of them at once, for the subscriptions whose buffers were full to
// take their changes, and ends those that stay behind with ErrSlow.
func (h *Hub) deliverLate(late map[*Subscription][]*stream.Change) (taken, dropped int) {
	if len(late) == 0 {
		return 0, 0
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for s, changes := range late {
		wg.Go(func() {
			n, slow := s.push(changes, h.slow)
			if slow {
				h.end(s, ErrSlow)
				h.obs.SubscriptionDropped()
			}
			mu.Lock()
			defer mu.Unlock()
			taken += n
			if slow {
				dropped++
			}
		})
	}
	wg.Wait()
	return taken, dropped
}

// accepts runs the subscription's filter. A filter that panics ends its subscription (with an
// internal error), not the reader.
func (s *Subscription) accepts(c *stream.Change) (ok bool) {
	if s.filter == nil {
		return true
	}
	defer func() {
		if p := recover(); p != nil {
			s.hub.log.Error("a subscription filter panicked; ending the subscription", "panic", fmt.Sprint(p))
			s.hub.end(s, apperr.Internal("subscription filter", fmt.Errorf("panic: %v", p)))
			ok = false
		}
	}()
	return s.filter(*c)
}
