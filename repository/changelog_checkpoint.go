package repository

import (
	"context"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// The change log's checkpoints: after each batch it appends, the reader records the batch's last
// sequence number per shard, in the table. A reader that starts without a fleet's checkpoints
// (StreamOptions.Resume unset: a single instance, restarted or redeployed) resumes each shard
// after them instead of at its newest record, so that the changes written while no reader ran
// are appended too (within the stream's 24 hours) and a client resuming from a cursor misses
// none. One PutItem per batch; a record read again is appended once (the append's condition).

// streamRecordLife is how long DynamoDB Streams keeps a record, and so a checkpoint is of use.
const streamRecordLife = 25 * time.Hour

// typeLogCheckpoint is the `type` of a checkpoint item.
const typeLogCheckpoint = "ChangeLogCheckpoint"

// logCheckpointPK is the partition of the checkpoints, one item per shard (SK: the shard id).
const logCheckpointPK = changeLogPrefix + "CHECKPOINTS"

// attrCheckpointSeq is a checkpoint's sequence number.
const attrCheckpointSeq = "seq"

// logCheckpointItem is the checkpoint of shard at seq, kept as long as the stream keeps records.
func logCheckpointItem(shard, seq string, expires int64) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		attrPK: s(logCheckpointPK), attrSK: s(shard), attrType: s(typeLogCheckpoint), attrCheckpointSeq: s(seq),
		attrLogExpires: &types.AttributeValueMemberN{Value: strconv.FormatInt(expires, 10)},
	}
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

// logCheckpoints reads every shard's checkpoint: shard id → sequence number.
func (r *Repo) logCheckpoints(ctx context.Context) (map[string]string, error) {
	items, err := r.queryItems(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(r.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(logCheckpointPK)},
	}, 10_000)
	if err != nil {
		return nil, err
	}
	marks := make(map[string]string, len(items))
	for _, item := range items {
		marks[stringAttr(item, attrSK)] = stringAttr(item, attrCheckpointSeq)
	}
	return marks, nil
}
