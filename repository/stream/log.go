package stream

import (
	"context"
	"time"

	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"singletable/repository"
)

// logStart is where a reader starts each shard: the change log's checkpoints and start marks
// in the table (changelog_checkpoint.go), read once when it starts, completed with the positions
// it was given (StreamOptions.Resume: a fleet's, from Redis).
type logStart struct {
	marks  map[string]logMark
	resume func(shard string) string
}

// readLogStart reads the change log's marks. When they cannot be read the reader goes on with
// the positions it was given alone (none for a single instance: it starts at the newest
// records, as it did before the log existed, and says so).
func (sr *StreamReader) readLogStart(ctx context.Context) *logStart {
	marks, err := sr.repo.logMarks(ctx)
	if err != nil {
		sr.repo.Log.Warn("the change log's checkpoints cannot be read; the stream is read on from the positions given, or its newest records", "error", err.Error())
	} else if len(marks) > 0 {
		sr.repo.Log.Info("the stream is read on from the change log's checkpoints", "shards", len(marks))
	}
	return &logStart{marks: marks, resume: sr.opts.Resume}
}

// after is the sequence number to continue shard after ("" for none): the earlier of the given
// position and the log's checkpoint where there are both. The table's checkpoint is written when
// a chunk is appended, before a fleet publishes it: resuming after the later one would skip
// publishing what was appended but not yet published, while a record read again is not appended
// again (the checkpoint covers it): the appender hands the checkpoint's last chunk on at the
// positions it has in the log, and each instance hands a sequence number on once.
func (ls *logStart) after(shard string) string {
	given := ""
	if ls.resume != nil {
		given = ls.resume(shard)
	}
	logged := ls.marks[shard].seq
	if given == "" || logged != "" && sequenceAfter(given, logged) {
		return logged
	}
	return given
}

// continues says a previous reader read shard: it has a position to continue after, or a start
// mark. Such a shard is read on at start even when it is closed (its last records may not be in
// the log yet), and so are its descendants, from their oldest records.
func (ls *logStart) continues(shard string) bool {
	_, marked := ls.marks[shard]
	return marked || ls.after(shard) != ""
}

// position sets where s starts: after its checkpoint; else, from a previous reader's start mark
// (its oldest record, skipping those from before the minute the previous reader opened it at its
// newest: see shardReader.reposition); else where the plan says, recording that start as the
// shard's mark, so that the next reader knows it, should this one stop before the shard's first
// chunk is in the log.
func (ls *logStart) position(ctx context.Context, r *Stream, s *shardReader) {
	if s.last = ls.after(s.id); s.last != "" {
		return
	}
	if m, ok := ls.marks[s.id]; ok {
		s.start = stypes.ShardIteratorTypeTrimHorizon
		if !m.opened.IsZero() {
			s.notBefore = m.opened.Truncate(time.Minute)
		}
		return
	}
	var opened time.Time
	if s.start == stypes.ShardIteratorTypeLatest {
		opened = time.Now()
	}
	if err := r.saveLogStart(ctx, s.id, opened); err != nil {
		r.Log.Warn("the change log's start of a shard was not saved", "shard", s.id, "error", err.Error())
	}
}

// appendToLog appends a shard's batch to the change log and hands it on, chunk by chunk
// (logAppender.next: in the order of their positions across shards), retrying with the reader's
// backoff while DynamoDB fails or throttles, so that a change is delivered live only once a
// replay can find it (the seam between a replay and the live changes relies on it). false when
// ctx ended first: the rest of the batch is neither logged nor handed on, and the reader that
// resumes this shard (a fleet's next lease holder, from the checkpoint) reads it again; what was
// appended already is not appended twice.
func (s *shardReader) appendToLog(ctx context.Context, changes []Change) bool {
	handOn := func(chunk []Change) {
		if s.run.h.Changes != nil {
			s.run.h.Changes(ctx, chunk)
		}
	}
	for attempt := 0; len(changes) > 0; {
		n, err := s.run.log.next(ctx, s.id, changes, handOn)
		if err == nil {
			s.run.ok()
			changes, attempt = changes[n:], 0
			continue
		}
		if ctx.Err() != nil {
			return false
		}
		s.run.fail(err)
		if repository.SleepCtx(ctx, s.run.backoff(attempt)) != nil {
			return false
		}
		attempt++
	}
	return true
}
