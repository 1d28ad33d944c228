package resolvers

import (
	"context"
	"errors"

	"singletable/apperr"
	"singletable/changefeed"
	"singletable/repository/stream"
)

// A subscription opened with `after` replays before it goes live. It subscribes to the hub first,
// then reads the change log page by page (one Query per page, in the event's context: priced and
// debited like the live events' reads) and delivers what it reads; once the log has nothing
// more it delivers the hub's buffered changes, skipping those the replay delivered already. The
// reader appends a change to the log before it dispatches it, so a change is in the log or in the
// buffer (or both, then delivered once): no gap, no duplicate at the seam.

// replay is the part of a subscription's replay not delivered yet.
type replay struct {
	// read is the position of the last log item read: where the next page starts, and the
	// newest change a live one must be after to be new.
	read    uint64
	pending []stream.Change
	more    bool
}

// replayed is the next change of the replay, nil once it is over (s.replay stays set, done, so
// that the live changes it delivered already are recognised).
func (s *liveStream[T]) replayed(ctx context.Context) (*stream.Change, error) {
	r := s.replay
	for len(r.pending) == 0 {
		if !r.more {
			return nil, nil
		}
		changes, last, more, err := changePage(ctx, s.repo, s.feed, r.read, replayPage)
		if err != nil {
			return nil, err
		}
		r.pending, r.read, r.more = changes, last, more
	}
	c := &r.pending[0]
	r.pending = r.pending[1:]
	return c, nil
}

// seenInReplay reports whether a live change is one the replay covered (read from the log).
func (s *liveStream[T]) seenInReplay(c *stream.Change) bool {
	return s.replay != nil && c.Position <= s.replay.read
}

// ended is the error a subscription that ended tells its client: for a gap, a slow client or a
// drain, the hub's error with the cursor to resume from (extensions.cursor), so that the
// client's retry replays what it missed instead of refetching: the last change delivered, or
// where the subscription started when it delivered none (its `after`, or the log's head).
func (s *liveStream[T]) ended(err error) error {
	var coded *apperr.Error
	switch {
	case err == nil && s.drained():
		coded = changefeed.ErrDrained
	case err != nil && errors.As(err, &coded) && (coded.Reason == changefeed.ReasonGap || coded.Reason == changefeed.ReasonSlow):
	default:
		return err
	}
	resumable := *coded
	resumable.Cursor = s.repo.ChangeCursorAt(s.feed.scope, s.pos).String()
	return &resumable
}

// drained reports whether the hub completed the subscription because it was shutting down.
func (s *liveStream[T]) drained() bool {
	select {
	case <-s.hub.Done():
		return true
	default:
		return false
	}
}
