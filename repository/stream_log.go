package repository

import "context"

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
