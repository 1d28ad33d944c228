package stream

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// The change log's head: one item for the whole table holding the last position taken. The
// reader moves it in the transaction that appends a chunk, conditional on the value it read, so
// two appends (two readers during a handover, a call retried after a lost answer) never take the
// same positions: the second one's condition fails, and it reads the head again.

// typeLogHead is the `type` of the head item.
const typeLogHead = "ChangeLogHead"

// logHeadKey is the head item's key, in a partition of its own.
var logHeadKey = repository.Key{PK: changeLogPrefix + "HEAD", SK: "HEAD"}

// logHeadItem is the head item at pos (what moveLogHead leaves).
func logHeadItem(pos uint64) map[string]types.AttributeValue {
	item := logHeadKey.Attributes()
	item[repository.AttrType], item[attrLogPos] = repository.StringValue(typeLogHead), &types.AttributeValueMemberN{Value: strconv.FormatUint(pos, 10)}
	return item
}

var _ = repository.DeclareItem(func() map[string]types.AttributeValue { return logHeadItem(1) }, nil)

// readLogHead reads the last position taken (0: none yet), strongly consistent.
func (r *Stream) readLogHead(ctx context.Context) (uint64, error) {
	out, err := r.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.Table()), ConsistentRead: aws.Bool(true),
		Key: logHeadKey.Attributes(), ProjectionExpression: aws.String("#pos"),
		ExpressionAttributeNames: map[string]string{"#pos": attrLogPos}})
	if err != nil {
		return 0, apperr.Classify("read change log head", err)
	}
	pos, _ := strconv.ParseUint(numberAttr(out.Item, attrLogPos), 10, 64)
	return pos, nil
}

// ChangeLogHead is the log's newest position now, as a position a subscription that opens now
// resumes from (Logged: now, so it expires a retention from now): every change appended from now
// on is after it. One strongly consistent GetItem.
func (r *Stream) ChangeLogHead(ctx context.Context) (ChangePosition, error) {
	pos, err := r.readLogHead(ctx)
	if err != nil {
		return ChangePosition{}, err
	}
	return ChangePosition{Position: pos, Logged: r.Now()}, nil
}

// moveLogHead is the transaction's action that moves the head from old to pos, refused when the
// head is not at old.
func (r *Stream) moveLogHead(old, pos uint64) types.TransactWriteItem {
	cond := "#pos = :old"
	values := map[string]types.AttributeValue{
		":pos": &types.AttributeValueMemberN{Value: strconv.FormatUint(pos, 10)},
		":t":   repository.StringValue(typeLogHead),
	}
	if old == 0 {
		cond = "attribute_not_exists(#pos)"
	} else {
		values[":old"] = &types.AttributeValueMemberN{Value: strconv.FormatUint(old, 10)}
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(r.Table()), Key: logHeadKey.Attributes(),
		UpdateExpression:          aws.String("SET #pos = :pos, #type = :t"),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  map[string]string{"#pos": attrLogPos, "#type": repository.AttrType},
		ExpressionAttributeValues: values,
	}}
}
