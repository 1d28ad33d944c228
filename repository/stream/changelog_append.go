package stream

import (
	"context"
	"errors"
	"maps"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// Appending to the change log, in an order that never changes once read. DynamoDB splits a busy
// table's stream over several open shards, each read on its own, so the stream's sequence numbers
// cannot order the log: a lagging shard would append a change below one a client already read.
// The reader instead numbers the changes itself, across all shards, as it appends them: one
// appender per reader, serial, a chunk of one shard's changes at a time, each chunk ONE
// TransactWriteItems that
//   - puts the chunk's log items at the next positions (one item per change and scope, every
//     scope's item of a change at the same position),
//   - moves the log's head past them, conditional on the head the appender read, and
//   - moves the shard's checkpoint to the chunk's last record, conditional on the checkpoint the
//     appender read.
//
// A chunk is in the log whole or not at all, after every chunk appended before it (the next
// chunk is written only once this one is committed). A second appender (a fleet's next reader
// while the previous one still runs, a reader resuming a shard, a call retried after a lost
// answer) fails a condition and appends nothing: the appender then reads the head and the
// checkpoint again, and the records the checkpoint covers are in the log already. The appender
// hands each chunk on before it appends the next, so changes are handed on in the order of their
// positions, and at most one chunk is appended and not yet handed on when a reader stops.

// Limits of a chunk: TransactWriteItems takes at most 100 actions (two are the head and the
// checkpoint) and 4 MB; a chunk stays under 3 MB by the items' estimated sizes.
const (
	maxChunkActions = repository.MaxTransactItems - 2
	maxChunkBytes   = 3 << 20
)

// errLogMoved is a chunk's append refused because the head or the shard's checkpoint is not
// where the appender read it: another append got there first.
var errLogMoved = errors.New("the change log's head or checkpoint moved since the appender read it")

// logAppender numbers and appends the changes of every shard of one reader, one chunk at a time.
type logAppender struct {
	repo *Stream

	mu       sync.Mutex
	head     uint64
	headRead bool
	// marks is each shard's checkpoint as the appender last read or wrote it.
	marks map[string]logMark
}

func newLogAppender(r *Stream, marks map[string]logMark) *logAppender {
	a := &logAppender{repo: r, marks: maps.Clone(marks)}
	if a.marks == nil {
		a.marks = map[string]logMark{}
	}
	return a
}

// next deals with the first changes of a shard's batch (in the shard's order) and hands them on
// (handOn is called holding the appender, so that every shard's chunks are handed on in the
// order of their positions): the changes the shard's checkpoint covers, which are in the log
// already, or the next chunk, appended. It returns how many of batch it dealt with; zero with no
// error when another append got there first (the appender has read the log's state again: call
// again). A failed call returns the error, and the caller retries.
func (a *logAppender) next(ctx context.Context, shard string, batch []Change, handOn func([]Change)) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.headRead {
		head, err := a.repo.readLogHead(ctx)
		if err != nil {
			return 0, err
		}
		a.head, a.headRead = head, true
	}
	m := a.marks[shard]
	if n := m.covers(batch); n > 0 {
		if known := a.logged(shard, m, batch[:n]); len(known) > 0 {
			handOn(known)
		}
		return n, nil
	}
	chunk := batch[:chunkLen(batch)]
	err := a.write(ctx, shard, m, chunk)
	if errors.Is(err, errLogMoved) {
		return 0, a.reload(ctx, shard, m)
	}
	if err != nil {
		return 0, err
	}
	handOn(chunk)
	return len(chunk), nil
}

// covers counts the changes at the start of batch that the checkpoint covers.
func (m logMark) covers(batch []Change) int {
	n := 0
	for n < len(batch) && m.seq != "" && !sequenceAfter(batch[n].Sequence, m.seq) {
		n++
	}
	return n
}

// logged gives the changes a checkpoint covers the positions the log has them at: those of its
// last chunk (from m.from on), numbered from m.first as they were appended. Earlier ones were
// handed on by the reader that appended them (it hands a chunk on before it appends the next)
// and are left out.
func (a *logAppender) logged(shard string, m logMark, covered []Change) []Change {
	known := make([]Change, 0, len(covered))
	pos := m.first - 1
	for _, c := range covered {
		if m.from == "" || sequenceAfter(m.from, c.Sequence) {
			continue
		}
		if len(changeLogs(c)) > 0 {
			pos++
		}
		c.Position, c.Logged = pos, m.at
		known = append(known, c)
	}
	if skipped := len(covered) - len(known); skipped > 0 {
		a.repo.Log.Info("records read again that are in the change log already were not handed on again", "shard", shard, "records", skipped)
	}
	return known
}

// write appends chunk as one transaction (see above); errLogMoved when a condition failed. The
// changes get their positions and the time they were logged; a change the log keeps no item of
// gets the position before it. A chunk of such changes alone writes nothing: the next chunk's
// checkpoint covers them.
func (a *logAppender) write(ctx context.Context, shard string, m logMark, chunk []Change) error {
	now, pos, from := a.repo.Now(), a.head, ""
	usage := repository.ChangeLogUsage{Billed: 2 * transactUnits(1)} // the head and the checkpoint: under 1 KB each
	var actions []types.TransactWriteItem
	for i := range chunk {
		c := &chunk[i]
		logs := changeLogs(*c)
		if len(logs) > 0 {
			pos++
			if from == "" {
				from = c.Sequence
			}
		}
		c.Position, c.Logged = pos, now
		for _, log := range logs {
			item := changeLogItem(log, c, a.repo.ChangeRetention())
			size := itemSize(item)
			usage.Items, usage.Bytes, usage.Billed = usage.Items+1, usage.Bytes+size, usage.Billed+transactUnits(size)
			actions = append(actions, types.TransactWriteItem{Put: &types.Put{
				TableName: aws.String(a.repo.Table()), Item: item,
				ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
				ExpressionAttributeNames: map[string]string{"#pk": repository.AttrPK},
			}})
		}
	}
	if len(actions) == 0 {
		return nil
	}
	next := logMark{seq: chunk[len(chunk)-1].Sequence, from: from, first: a.head + 1, at: now}
	actions = append(actions, a.repo.moveLogHead(a.head, pos), a.repo.moveLogCheckpoint(shard, m.seq, next))
	out, err := a.repo.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: actions, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		return logAppendError(err)
	}
	usage.Changes = int(pos - a.head)
	a.repo.AddLogUsage(usage, out.ConsumedCapacity)
	a.head, a.marks[shard] = pos, next
	return nil
}

// logAppendError is errLogMoved for a transaction cancelled by a failed condition, else the
// classified error.
func logAppendError(err error) error {
	var tc *types.TransactionCanceledException
	if errors.As(err, &tc) {
		for _, reason := range tc.CancellationReasons {
			if aws.ToString(reason.Code) == "ConditionalCheckFailed" {
				return errLogMoved
			}
		}
	}
	return apperr.Classify("append changes", err)
}

// reload reads the head and the shard's checkpoint again after an append was refused. When
// neither moved, the refusal was a log item at a position past the head (the head item was
// removed or restored from an older backup): an error, which the reader retries with backoff
// and reports, until an operator sets the head past the log's items.
func (a *logAppender) reload(ctx context.Context, shard string, was logMark) error {
	head, err := a.repo.readLogHead(ctx)
	if err != nil {
		return err
	}
	m, err := a.repo.logMarkOfShard(ctx, shard)
	if err != nil {
		return err
	}
	if head == a.head && m.seq == was.seq {
		return apperr.Internal("append changes", errors.New("the change log holds items past its head: set the head past them"))
	}
	a.head, a.marks[shard] = head, m
	return nil
}

// moveLogCheckpoint is the transaction's action that moves shard's checkpoint from sequence
// number was ("" for none: no item, or a start mark) to next, refused when it is not at was.
func (r *Stream) moveLogCheckpoint(shard, was string, next logMark) types.TransactWriteItem {
	put := &types.Put{TableName: aws.String(r.Table()), Item: logCheckpointItem(shard, next, r.Now().Add(streamRecordLife).Unix()),
		ConditionExpression: aws.String("attribute_not_exists(#seq)"), ExpressionAttributeNames: map[string]string{"#seq": attrCheckpointSeq}}
	if was != "" {
		put.ConditionExpression = aws.String("#seq = :was")
		put.ExpressionAttributeValues = map[string]types.AttributeValue{":was": repository.StringValue(was)}
	}
	return types.TransactWriteItem{Put: put}
}

// chunkLen is how many of batch's first changes fit one transaction (at least one).
func chunkLen(batch []Change) int {
	n, actions, size := 0, 0, 0
	for _, c := range batch {
		logs := len(changeLogs(c))
		bytes := logs * (256 + itemSize(c.newItem) + itemSize(c.oldItem))
		if n > 0 && (actions+logs > maxChunkActions || size+bytes > maxChunkBytes) {
			break
		}
		n, actions, size = n+1, actions+logs, size+bytes
	}
	return n
}
