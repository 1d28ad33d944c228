package repository

import "context"

// ChangeLogCheckpoints is every shard's change-log checkpoint (shard id → the sequence number
// of the last change appended): where a reader that has no better position resumes (a fleet whose
// Redis lost its own checkpoints).
func (r *Repo) ChangeLogCheckpoints(ctx context.Context) (map[string]string, error) {
	return r.logCheckpoints(ctx)
}

// resumeFromLog is the Resume of a reader that was given none: the change log's checkpoints in
// the table (changelog_checkpoint.go), read once when it starts; nil when there are none (the
// first reader of the table) or they cannot be read (the reader starts at the newest records,
// as it did before the log existed, and says so).
func (sr *StreamReader) resumeFromLog(ctx context.Context) func(string) string {
	marks, err := sr.repo.logCheckpoints(ctx)
	if err != nil {
		sr.repo.log.Warn("the change log's checkpoints cannot be read; the stream is read from its newest records", "error", err.Error())
		return nil
	}
	if len(marks) == 0 {
		return nil
	}
	sr.repo.log.Info("the stream is read on from the change log's checkpoints", "shards", len(marks))
	return func(shard string) string { return marks[shard] }
}

// appendToLog appends a shard's batch to the change log before the reader hands it on, retrying
// with the reader's backoff while DynamoDB fails or throttles, so that a change is delivered
// live only once a replay can find it (the seam between a replay and the live changes relies on
// it). false when ctx ended first: the batch is neither logged in full nor handed on, and the
// reader that resumes this shard (a fleet's next lease holder, from the checkpoint) reads it
// again; what was appended already is not appended twice.
func (s *shardReader) appendToLog(ctx context.Context, changes []Change) bool {
	for attempt := 0; ; attempt++ {
		err := s.run.repo.appendChanges(ctx, changes)
		if err == nil {
			s.run.ok()
			if err := s.run.repo.saveLogCheckpoint(ctx, s.id, changes[len(changes)-1].Sequence); err != nil {
				// The next batch's checkpoint covers this one; a restart meanwhile reads it again.
				s.run.repo.log.Warn("the change log's checkpoint was not saved", "shard", s.id, "error", err.Error())
			}
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		s.run.fail(err)
		if sleepCtx(ctx, s.run.backoff(attempt)) != nil {
			return false
		}
	}
}
