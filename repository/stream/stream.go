// Package stream reads the table's stream and keeps the change log: the reader hands each
// change of an entity to the subscriptions (StreamReader, Change) and appends it to the log of
// every scope it lies in, from which a client that was away replays what it missed (delta sync).
package stream

import "singletable/repository"

// Stream is the table's stream and change log, over the engine's Repo.
type Stream struct {
	*repository.Repo
}

// New is the stream and change log of r's table.
func New(r *repository.Repo) *Stream { return &Stream{Repo: r} }
