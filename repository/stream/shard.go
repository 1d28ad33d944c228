package stream

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"

	"singletable/repository"
)

// shardReader reads one shard, from one goroutine.
type shardReader struct {
	run     *streamRun
	arn, id string
	// start is where to open the shard while no record has been read from it.
	start stypes.ShardIteratorType
	iter  *string
	// last is the sequence number of the last record handed on: an iterator is renewed after
	// it, and a record at or before it is never handed on twice.
	last string
	// restart opens the shard at start even after a record was read (its successors were
	// trimmed).
	restart bool
	// openedAt is when the shard was first opened at its newest record; notBefore, once set,
	// skips records older than that (see reposition).
	openedAt, notBefore time.Time
	// failures counts the failed calls in a row, for the backoff.
	failures int
}

// read reads the shard until it ends (true: closed and read to its end) or ctx ends (false: the
// run ends, or the shard is no longer listed).
func (s *shardReader) read(ctx context.Context) bool {
	for ctx.Err() == nil {
		if s.iter == nil {
			s.open(ctx)
			continue
		}
		out, err := s.run.repo.Streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: s.iter})
		if err != nil {
			s.recover(ctx, err)
			continue
		}
		s.succeeded()
		s.deliver(ctx, out.Records)
		if s.iter = out.NextShardIterator; s.iter == nil {
			return true
		}
		if len(out.Records) == 0 && repository.SleepCtx(ctx, s.run.opts.PollInterval) != nil {
			return false
		}
	}
	return false
}

// open gets an iterator: after the last record handed on, or at the shard's start position.
func (s *shardReader) open(ctx context.Context) {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(s.arn), ShardId: aws.String(s.id), ShardIteratorType: s.start}
	if s.last != "" && !s.restart {
		in.ShardIteratorType, in.SequenceNumber = stypes.ShardIteratorTypeAfterSequenceNumber, aws.String(s.last)
	}
	out, err := s.run.repo.Streams.GetShardIterator(ctx, in)
	if err != nil {
		s.recover(ctx, err)
		return
	}
	s.succeeded()
	s.iter, s.restart = out.ShardIterator, false
	if s.openedAt.IsZero() && in.ShardIteratorType == stypes.ShardIteratorTypeLatest {
		s.openedAt = time.Now()
	}
}

// openRetrying opens the shard, retrying until it succeeds; false when ctx ended first.
func (s *shardReader) openRetrying(ctx context.Context) bool {
	for s.iter == nil {
		if ctx.Err() != nil {
			return false
		}
		s.open(ctx)
	}
	return true
}

// recover handles a failed call: it decides where to read next, and waits when the failure
// calls for it.
func (s *shardReader) recover(ctx context.Context, err error) {
	var (
		expired  *stypes.ExpiredIteratorException
		trimmed  *stypes.TrimmedDataAccessException
		notFound *stypes.ResourceNotFoundException
	)
	switch {
	case ctx.Err() != nil:
		return
	case errors.As(err, &expired):
		// Iterators live 15 minutes: this one outlived a long wait. A new one after the last
		// record read loses nothing.
		s.iter = nil
		s.reposition()
		return
	case errors.As(err, &trimmed):
		// The records after the last one read are older than the stream keeps (24 hours): read
		// on from the oldest record there is (skipping any already handed on). That is a gap.
		if !s.reposition() {
			s.run.gap(s.id, "records were trimmed from the stream before they were read")
			s.iter, s.start, s.restart = nil, stypes.ShardIteratorTypeTrimHorizon, true
		}
		s.iter = nil
		return
	case errors.As(err, &notFound):
		// The stream or the shard is gone, or not there yet. Whether it still exists is for the
		// stream's description to say: readStream ends the readers of shards it no longer lists,
		// and the whole run when the stream is gone. Until then, try again.
		s.iter = nil
	default:
		s.run.fail(err)
	}
	s.failures++
	_ = repository.SleepCtx(ctx, s.run.backoff(s.failures-1))
}

// reposition handles the loss of the position of a shard opened at its newest record from which
// no record has been read yet (there is no record to continue after): it reads the shard from its
// oldest record, skipping the records created before the shard was opened. Their times are
// rounded down (to the second on AWS, to the minute on DynamoDB Local), so the cut is the minute
// of opening: a few changes from just before the reader started may be delivered, none after it
// is missed. DynamoDB Local needs this in ordinary operation: its sequence numbers are shared by
// all tables, and a position taken on an empty shard while other tables are written is later
// reported as trimmed. It returns false when the shard has a record to continue after.
func (s *shardReader) reposition() bool {
	if s.last != "" || s.start != stypes.ShardIteratorTypeLatest {
		return false
	}
	s.start, s.notBefore = stypes.ShardIteratorTypeTrimHorizon, s.openedAt.Truncate(time.Minute)
	return true
}

// succeeded notes a successful call.
func (s *shardReader) succeeded() {
	s.failures = 0
	s.run.ok()
}

// throttled says DynamoDB Streams refused a call for its rate (retried with backoff, and not an
// outage: the service is there).
func throttled(err error) bool {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return false
	}
	switch api.ErrorCode() {
	case "LimitExceededException", "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded":
		return true
	}
	return false
}

// deliver decodes a page of records, appends the changes to the change log and hands them on.
// Records at or before the last one handed on are skipped (after a restart at the shard's oldest
// record); records that are not about an entity are skipped; a record whose entity does not
// decode is logged and skipped.
func (s *shardReader) deliver(ctx context.Context, recs []stypes.Record) {
	changes := make([]Change, 0, len(recs))
	var newest time.Time
	for _, rec := range recs {
		if rec.Dynamodb == nil {
			continue
		}
		seq, at := aws.ToString(rec.Dynamodb.SequenceNumber), aws.ToTime(rec.Dynamodb.ApproximateCreationDateTime)
		if s.last != "" && !sequenceAfter(seq, s.last) || at.Before(s.notBefore) {
			continue
		}
		s.last, newest = seq, at
		c, ok, err := decodeRecord(rec)
		c.Shard = s.id
		if err != nil {
			s.run.repo.Log.Warn("a record of the table's stream does not decode; skipped", "shard", s.id, "error", err.Error())
			continue
		}
		if ok {
			changes = append(changes, c)
		}
	}
	if len(changes) > 0 && !s.appendToLog(ctx, changes) {
		return
	}
	var lag time.Duration
	if !newest.IsZero() {
		lag = max(0, time.Since(newest))
	}
	s.run.polled(s.id, len(recs), lag)
}

// SequenceAfter compares two sequence numbers of one shard: decimal numbers of up to 40 digits,
// without leading zeros on AWS (DynamoDB Local pads them to one width).
func SequenceAfter(a, b string) bool { return sequenceAfter(a, b) }

func sequenceAfter(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a > b
}
