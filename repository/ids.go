package repository

import (
	"crypto/rand"
	"time"

	"github.com/oklog/ulid/v2"

	"singletable/apperr"
)

// Entity ids are ULIDs: 26 characters of Crockford base32 whose first 10 encode the creation time
// in milliseconds. Sorting ids as strings therefore sorts by creation time, which is what makes a
// ticket's or an order's sort key double as its time line: a timestamp followed by a random
// suffix is unique without coordination and sorts by time.
//
// The random suffix (80 bits) comes from crypto/rand. Ids are handed to clients, so guessing
// them must be as hard as guessing 80 random bits: the ULID library's default entropy is math/rand
// seeded with the process's start time, which anyone who knows roughly when the server started
// can replay, and two processes started in the same instant would share. Within one millisecond
// the source is monotonic (each id adds a random increment below 2^32 to the previous suffix), so
// ids of one process still sort in creation order; that makes an id minted in the same millisecond
// as a known one guessable within 2^32, the price of the time line.

// idSource mints ids; each Repo has its own, made by NewIDSource when the Repo is built.
type idSource struct {
	entropy *ulid.LockedMonotonicReader
}

// NewIDSource returns a source that draws its randomness from crypto/rand only.
func NewIDSource() *idSource {
	return &idSource{entropy: &ulid.LockedMonotonicReader{MonotonicReader: ulid.Monotonic(rand.Reader, 0)}}
}

// NewID returns a fresh id for an entity created at now.
func (s *idSource) NewID(now time.Time) (string, error) {
	id, err := ulid.New(ulid.Timestamp(now), s.entropy)
	if err != nil {
		return "", apperr.Internal("new id", err)
	}
	return id.String(), nil
}

// ValidID reports whether s is an id in its canonical (upper-case) spelling. Ids taken from
// clients go into keys, so only the one spelling that newID produces is accepted.
func ValidID(s string) bool {
	if len(s) != ulid.EncodedSize {
		return false
	}
	id, err := ulid.ParseStrict(s)
	return err == nil && id.String() == s
}

// idTime is the creation time encoded in a valid id.
func idTime(id string) time.Time {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return time.Time{}
	}
	return ulid.Time(u.Time()).UTC()
}

// LowestIDAt and HighestIDAt bound every id created in the millisecond of t, for key-range
// conditions on time (BETWEEN LowestIDAt(from) AND HighestIDAt(to)).
func LowestIDAt(t time.Time) string {
	var u ulid.ULID
	_ = u.SetTime(ulid.Timestamp(clampIDTime(t)))
	return u.String()
}

func HighestIDAt(t time.Time) string {
	var u ulid.ULID
	for i := range u {
		u[i] = 0xFF
	}
	_ = u.SetTime(ulid.Timestamp(clampIDTime(t)))
	return u.String()
}

// clampIDTime keeps t inside the range a ULID can encode (Unix epoch to year 10889).
func clampIDTime(t time.Time) time.Time {
	if t.Before(time.UnixMilli(0)) {
		return time.UnixMilli(0)
	}
	if maxT := ulid.Time(ulid.MaxTime()); t.After(maxT) {
		return maxT
	}
	return t
}

// idRange is the inclusive range [lo, hi] of the ids created strictly after `after` and strictly
// before `before` (nil: unbounded), for key conditions on time-sortable ids (BETWEEN lo AND hi).
// Ids have millisecond precision: "after t" starts at the next whole millisecond and "before t"
// ends at the last whole millisecond before t. ok is false when no id can fall in the range.
func IDRange(after, before *time.Time) (lo, hi string, ok bool) {
	from, to := time.UnixMilli(0), ulid.Time(ulid.MaxTime())
	if after != nil {
		from = after.Truncate(time.Millisecond).Add(time.Millisecond)
	}
	if before != nil {
		to = before.Truncate(time.Millisecond)
		if to.Equal(*before) {
			to = to.Add(-time.Millisecond)
		}
	}
	if from.After(to) || to.Before(time.UnixMilli(0)) || from.After(ulid.Time(ulid.MaxTime())) {
		return "", "", false
	}
	return LowestIDAt(from), HighestIDAt(to), true
}

// idBefore is the id immediately before id in sort order (ok is false for the smallest id), so
// that "id < x" can be written as the key condition bound "<= idBefore(x)".
func IDBefore(id string) (string, bool) {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return "", false
	}
	for i := len(u) - 1; i >= 0; i-- {
		if u[i] > 0 {
			u[i]--
			return u.String(), true
		}
		u[i] = 0xFF
	}
	return "", false
}

// NewEntityID returns a fresh id and the creation time it encodes (millisecond precision, UTC).
func (r *Repo) NewEntityID() (string, time.Time, error) {
	id, err := r.ids.NewID(r.Now())
	if err != nil {
		return "", time.Time{}, err
	}
	return id, idTime(id), nil
}
