package repository

import "time"

// Timestamps are stored and shown with millisecond precision. createdAt is the time encoded in
// the entity's id, which holds whole milliseconds, so updatedAt is cut to the same precision:
// the two fields of one object then compare and print alike (an update in the same millisecond
// as the creation shows the same instant, not a later-looking one with extra digits). Values
// are stored as RFC 3339 strings, so items written earlier with nanoseconds still decode.

// Stamp is the time a write records as updatedAt: now, in UTC, truncated to the millisecond.
func (r *Repo) Stamp() time.Time { return r.Now().UTC().Truncate(time.Millisecond) }
