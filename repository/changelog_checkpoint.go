package repository

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// The change log's checkpoints: after each batch it appends, the reader records the batch's last
// sequence number per shard, in the table. A reader that starts (a single instance, restarted
// or redeployed; a fleet's next lease holder, whose Redis checkpoints they complete) resumes each
// shard after them instead of at its newest record, so that the changes written while no reader
// ran are appended too (within the stream's 24 hours) and a client resuming from a cursor misses
// none. One PutItem per batch; a record read again is appended once (the append's condition).
//
// Start marks: when a reader starts reading a shard it has no checkpoint of, it first records
// where it starts (the same item, without a sequence number: the time it opened the shard at
// its newest record, or nothing for its oldest). A reader that takes over before that shard's
// first batch was appended (a lease holder that dies between reading and appending, a shard that
// closed meanwhile) resumes the shard from that mark, not from its own start, so the records
// the previous reader read and did not append are appended by the next. One conditional PutItem
// per shard, when its reading starts.

// streamRecordLife is how long DynamoDB Streams keeps a record, and so a checkpoint is of use.
const streamRecordLife = 25 * time.Hour

// typeLogCheckpoint is the `type` of a checkpoint item.
const typeLogCheckpoint = "ChangeLogCheckpoint"

// logCheckpointPK is the partition of the checkpoints, one item per shard (SK: the shard id).
const logCheckpointPK = changeLogPrefix + "CHECKPOINTS"

// Attributes of a checkpoint: its sequence number; a start mark's opening time (epoch ms).
const (
	attrCheckpointSeq    = "seq"
	attrCheckpointOpened = "opened"
)

// logMark is where the log stands in a shard: after seq when a batch was appended, else from
// the start a reader recorded when it started reading the shard (opened: at its newest record
// then; zero: at its oldest).
type logMark struct {
	seq    string
	opened time.Time
}

// logCheckpointItem is the checkpoint of shard at seq, kept as long as the stream keeps records.
func logCheckpointItem(shard, seq string, expires int64) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		attrPK: s(logCheckpointPK), attrSK: s(shard), attrType: s(typeLogCheckpoint), attrCheckpointSeq: s(seq),
		attrLogExpires: &types.AttributeValueMemberN{Value: strconv.FormatInt(expires, 10)},
	}
}

// logStartItem is the start mark of shard: the checkpoint's item without a sequence number, with
// the time the reader opened the shard at its newest record (none for its oldest).
func logStartItem(shard string, opened time.Time, expires int64) map[string]types.AttributeValue {
	item := logCheckpointItem(shard, "", expires)
	delete(item, attrCheckpointSeq)
	if !opened.IsZero() {
		item[attrCheckpointOpened] = &types.AttributeValueMemberN{Value: strconv.FormatInt(opened.UnixMilli(), 10)}
	}
	return item
}

// saveLogCheckpoint records that the log has every change of shard up to seq.
func (r *Repo) saveLogCheckpoint(ctx context.Context, shard, seq string) error {
	expires := r.now().Add(streamRecordLife).Unix()
	_, err := r.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.table), Item: logCheckpointItem(shard, seq, expires)})
	if err != nil {
		return apperr.Classify("save change log checkpoint", err)
	}
	return nil
}

// saveLogStart records where a reader starts reading shard (opened: the time it opens it at its
// newest record; zero for its oldest), unless the shard has a checkpoint or a mark already: an
// earlier start stays, the later reader resumes from it.
func (r *Repo) saveLogStart(ctx context.Context, shard string, opened time.Time) error {
	item := logStartItem(shard, opened, r.now().Add(streamRecordLife).Unix())
	_, err := r.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.table), Item: item,
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK}})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return apperr.Classify("save change log start", err)
	}
	return nil
}

// logMarks reads every shard's checkpoint or start mark.
func (r *Repo) logMarks(ctx context.Context) (map[string]logMark, error) {
	items, err := r.queryItems(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(r.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(logCheckpointPK)},
	}, 10_000)
	if err != nil {
		return nil, err
	}
	marks := make(map[string]logMark, len(items))
	for _, item := range items {
		m := logMark{seq: stringAttr(item, attrCheckpointSeq)}
		if ms, err := strconv.ParseInt(numberAttr(item, attrCheckpointOpened), 10, 64); err == nil {
			m.opened = time.UnixMilli(ms)
		}
		marks[stringAttr(item, attrSK)] = m
	}
	return marks, nil
}
