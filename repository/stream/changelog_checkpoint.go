package stream

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// The change log's checkpoints: with each chunk it appends, the reader records the chunk's last
// sequence number per shard, in the table, in the same transaction as the chunk's log items
// (changelog_append.go), conditional on the checkpoint it read: a record at or before a shard's
// checkpoint is in the log, and is never appended again. A reader that starts (a single
// instance, restarted or redeployed; a fleet's next lease holder, whose Redis checkpoints they
// complete) resumes each shard after them instead of at its newest record, so that the changes
// written while no reader ran are appended too (within the stream's 24 hours) and a client
// resuming from a cursor misses none.
//
// A checkpoint also says where its chunk went: the sequence number of the chunk's first change
// the log keeps (from), that change's position (first) and when the chunk was logged (at). A
// fleet's next reader, which reads again the records its predecessor appended but did not hand
// on (at most the last chunk: the reader hands a chunk on before it appends the next), numbers
// them from there and hands them on with the positions they have in the log.
//
// Start marks: when a reader starts reading a shard it has no checkpoint of, it first records
// where it starts (the same item, without a sequence number: the time it opened the shard at
// its newest record, or nothing for its oldest). A reader that takes over before that shard's
// first chunk was appended (a lease holder that dies between reading and appending, a shard that
// closed meanwhile) resumes the shard from that mark, not from its own start, so the records
// the previous reader read and did not append are appended by the next. One conditional PutItem
// per shard, when its reading starts.

// streamRecordLife is how long DynamoDB Streams keeps a record, and so a checkpoint is of use.
const streamRecordLife = 25 * time.Hour

// typeLogCheckpoint is the `type` of a checkpoint item.
const typeLogCheckpoint = "ChangeLogCheckpoint"

// logCheckpointPK is the partition of the checkpoints, one item per shard (SK: the shard id).
const logCheckpointPK = changeLogPrefix + "CHECKPOINTS"

// Attributes of a checkpoint: its sequence number; its last chunk's first sequence number kept,
// that change's position and when the chunk was logged (epoch ms); a start mark's opening time
// (epoch ms).
const (
	attrCheckpointSeq    = "seq"
	attrCheckpointFrom   = "from"
	attrCheckpointFirst  = "first"
	attrCheckpointAt     = "at"
	attrCheckpointOpened = "opened"
)

// logMark is where the log stands in a shard: after seq when a chunk was appended (the chunk's
// changes from sequence number from on were logged at positions first, first+1, ... at at), else
// from the start a reader recorded when it started reading the shard (opened: at its newest
// record then; zero: at its oldest).
type logMark struct {
	seq, from string
	first     uint64
	at        time.Time
	opened    time.Time
}

// logCheckpointItem is the checkpoint of shard m, kept as long as the stream keeps records.
func logCheckpointItem(shard string, m logMark, expires int64) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{
		repository.AttrPK: repository.StringValue(logCheckpointPK), repository.AttrSK: repository.StringValue(shard), repository.AttrType: repository.StringValue(typeLogCheckpoint),
		repository.AttrLogExpires: &types.AttributeValueMemberN{Value: strconv.FormatInt(expires, 10)},
	}
	if m.seq != "" {
		item[attrCheckpointSeq], item[attrCheckpointFrom] = repository.StringValue(m.seq), repository.StringValue(m.from)
		item[attrCheckpointFirst] = &types.AttributeValueMemberN{Value: strconv.FormatUint(m.first, 10)}
		item[attrCheckpointAt] = &types.AttributeValueMemberN{Value: strconv.FormatInt(m.at.UnixMilli(), 10)}
	}
	return item
}

var _ = repository.DeclareItem(func() map[string]types.AttributeValue {
	return logCheckpointItem("<shardId>", logMark{seq: "<sequence>", from: "<sequence>", first: 1, at: time.UnixMilli(1)}, 0)
}, nil)

// logMarkOf reads a checkpoint or start mark item.
func logMarkOf(item map[string]types.AttributeValue) logMark {
	m := logMark{seq: repository.StringAttr(item, attrCheckpointSeq), from: repository.StringAttr(item, attrCheckpointFrom)}
	m.first, _ = strconv.ParseUint(numberAttr(item, attrCheckpointFirst), 10, 64)
	if ms, err := strconv.ParseInt(numberAttr(item, attrCheckpointAt), 10, 64); err == nil {
		m.at = time.UnixMilli(ms)
	}
	if ms, err := strconv.ParseInt(numberAttr(item, attrCheckpointOpened), 10, 64); err == nil {
		m.opened = time.UnixMilli(ms)
	}
	return m
}

// logStartItem is the start mark of shard: the checkpoint's item without a sequence number, with
// the time the reader opened the shard at its newest record (none for its oldest).
func logStartItem(shard string, opened time.Time, expires int64) map[string]types.AttributeValue {
	item := logCheckpointItem(shard, logMark{}, expires)
	if !opened.IsZero() {
		item[attrCheckpointOpened] = &types.AttributeValueMemberN{Value: strconv.FormatInt(opened.UnixMilli(), 10)}
	}
	return item
}

var _ = repository.DeclareItem(func() map[string]types.AttributeValue {
	return logStartItem("<shardId>", time.UnixMilli(1), 0)
}, nil)

// saveLogStart records where a reader starts reading shard (opened: the time it opens it at its
// newest record; zero for its oldest), unless the shard has a checkpoint or a mark already: an
// earlier start stays, the later reader resumes from it.
func (r *Stream) saveLogStart(ctx context.Context, shard string, opened time.Time) error {
	item := logStartItem(shard, opened, r.Now().Add(streamRecordLife).Unix())
	_, err := r.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.Table()), Item: item,
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": repository.AttrPK}})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return apperr.Classify("save change log start", err)
	}
	return nil
}

// logMarks reads every shard's checkpoint or start mark (strongly consistent: the last chunk
// appended is in them).
func (r *Stream) logMarks(ctx context.Context) (map[string]logMark, error) {
	items, err := r.QueryItems(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(r.Table()),
		ConsistentRead:            aws.Bool(true),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": repository.AttrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": repository.StringValue(logCheckpointPK)},
	}, 10_000)
	if err != nil {
		return nil, err
	}
	marks := make(map[string]logMark, len(items))
	for _, item := range items {
		marks[repository.StringAttr(item, repository.AttrSK)] = logMarkOf(item)
	}
	return marks, nil
}

// logMarkOfShard reads one shard's checkpoint or start mark (strongly consistent).
func (r *Stream) logMarkOfShard(ctx context.Context, shard string) (logMark, error) {
	out, err := r.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.Table()), ConsistentRead: aws.Bool(true),
		Key: repository.Key{PK: logCheckpointPK, SK: shard}.Attributes()})
	if err != nil {
		return logMark{}, apperr.Classify("read change log checkpoint", err)
	}
	return logMarkOf(out.Item), nil
}
