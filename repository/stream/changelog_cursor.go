package stream

import (
	"strconv"
	"strings"
	"time"

	"singletable/apperr"
	"singletable/repository"
)

// Change cursors: the position of a change in a log collection, sealed like every list's cursor
// (cursor.go, keyed from CURSOR_SECRET, so every instance of a fleet accepts every other's).
// The seal's scope is the log as a whole; the collection and the narrowing argument travel
// inside the sealed payload, so that a cursor of another collection is told apart from a forged
// one: the caller's own other scope is BAD_USER_INPUT, another tenant's is NOT_FOUND. The
// payload also carries when the change was logged: a cursor expires with its change, not with
// when it was handed out. The change's place is its position in the log (changelog_append.go).

// changeCursorScope is the seal's scope of every change cursor.
const changeCursorScope = "change log"

// ErrCursorExpired answers a cursor whose change is older than the retention: the changes after
// it may be gone from the log, so the client refetches what it shows.
var ErrCursorExpired = &apperr.Error{Code: apperr.CodeCursorExpired, Field: "after",
	Message: "the cursor's change is older than the change log keeps: refetch, then subscribe without a cursor or with a newer one"}

// ChangePosition is an opened change cursor: the collection it came from and the change's place:
// its position in the log (Change.Position; 0 before the first change), and when it was logged.
type ChangePosition struct {
	Scope    ChangeScope
	Position uint64
	Logged   time.Time
}

// positionMark starts the position in a cursor's payload. A cursor of an earlier form of the log
// carried the stream record's sequence number there (digits alone), which orders nothing across
// shards: such a cursor is CURSOR_EXPIRED (ErrCursorRetired).
const positionMark = "p"

// ErrCursorRetired answers a cursor of an earlier form of the change log (a stream record's
// sequence number, not a position): the client refetches, as for an expired one.
var ErrCursorRetired = &apperr.Error{Code: apperr.CodeCursorExpired, Field: "after",
	Message: "the cursor is of an earlier form of the change log: refetch, then subscribe without a cursor or with a newer one"}

// ChangeCursor is the position of c in scope, sealed when asked for: an event's cursor, and the
// edge cursor of the same change in a pull (equal strings).
func (r *Stream) ChangeCursor(scope ChangeScope, c *Change) repository.Cursor {
	return r.ChangeCursorAt(scope, ChangePosition{Position: c.Position, Logged: c.Logged})
}

// ChangeCursorAt is the cursor of a position in scope (pos.Scope is ignored).
func (r *Stream) ChangeCursorAt(scope ChangeScope, pos ChangePosition) repository.Cursor {
	return r.NewCursor(changeCursorScope, scope.Log, scope.Narrow, positionMark+strconv.FormatUint(pos.Position, 10), strconv.FormatInt(pos.Logged.UnixMilli(), 10))
}

// OpenChangeCursor checks a change cursor: BAD_USER_INPUT for a forged or altered one,
// CURSOR_EXPIRED for one whose change is past the retention. The caller compares the position's
// scope with its own.
func (r *Stream) OpenChangeCursor(cursor string) (ChangePosition, error) {
	vals, err := r.DecodeCursor(changeCursorScope, cursor, 4)
	if err != nil {
		return ChangePosition{}, err
	}
	ms, err := strconv.ParseInt(vals[3], 10, 64)
	if err != nil || vals[2] == "" {
		return ChangePosition{}, repository.ErrBadCursor
	}
	pos := ChangePosition{Scope: ChangeScope{Log: vals[0], Narrow: vals[1]}, Logged: time.UnixMilli(ms)}
	digits, isPosition := strings.CutPrefix(vals[2], positionMark)
	if !isPosition {
		return ChangePosition{}, ErrCursorRetired // sealed by this server: not forged
	}
	if pos.Position, err = strconv.ParseUint(digits, 10, 64); err != nil {
		return ChangePosition{}, repository.ErrBadCursor
	}
	if r.Now().Sub(pos.Logged) > r.ChangeRetention() {
		return ChangePosition{}, ErrCursorExpired
	}
	return pos, nil
}
