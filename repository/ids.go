package repository

import (
	"time"

	"github.com/oklog/ulid/v2"
)

// Entity ids are ULIDs: 26 characters of Crockford base32 whose first 10 encode the creation time
// in milliseconds. Sorting ids as strings therefore sorts by creation time, which is what makes a
// ticket's or an order's sort key double as its time line (seed 000: "a ticket id is a timestamp
// plus a random suffix"). Within one millisecond the process-wide monotonic entropy keeps ids
// strictly increasing.

// newID returns a fresh id for an entity created at now.
func newID(now time.Time) (string, error) {
	id, err := ulid.New(ulid.Timestamp(now), ulid.DefaultEntropy())
	if err != nil {
		return "", internal("new id", err)
	}
	return id.String(), nil
}

// validID reports whether s is an id in its canonical (upper-case) spelling. Ids taken from
// clients go into keys, so only the one spelling that newID produces is accepted.
func validID(s string) bool {
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

// lowestIDAt and highestIDAt bound every id created in the millisecond of t, for key-range
// conditions on time (BETWEEN lowestIDAt(from) AND highestIDAt(to)).
func lowestIDAt(t time.Time) string {
	var u ulid.ULID
	_ = u.SetTime(ulid.Timestamp(clampIDTime(t)))
	return u.String()
}

func highestIDAt(t time.Time) string {
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
