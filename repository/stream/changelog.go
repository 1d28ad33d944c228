package stream

import (
	"context"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
)

// The change log (delta sync): the stream's reader appends every change of an object a
// subscription can name to the log collection of each scope the object lies in (changeLogs),
// before it hands the change to the subscriptions. A client that was away replays the changes
// after its cursor from the log with one Query per page, then continues live.
//
// Ordered by position: the reader numbers the changes it appends, across every shard of the
// stream, and a log item's sort key is its change's position. It appends serially, a chunk of
// one shard's changes at a time, as one transaction that also moves the log's head and the
// shard's checkpoint, each conditional on what the reader last saw (changelog_append.go). So a
// position is taken once, a record is appended once (a second reader, a retried call, a reader
// that resumes a shard cannot append it again), and a chunk is in the log whole or not at all,
// after every chunk appended before it: a position once read never gets an earlier neighbour,
// however many shards are open.

// MaxChangesPage and DefaultChangesPage are the most changes a pull of the log returns per page
// (`first`), and how many without `first`.
const (
	MaxChangesPage     = 500
	DefaultChangesPage = 100
)

// Attributes of a log item.
const (
	attrLogKind  = "kind"
	attrLogPos   = "pos"
	attrLogSeq   = "seq"
	attrLogShard = "shard"
	attrLogAt    = "at"
	attrLogNew   = "new"
	attrLogOld   = "old"
)

// changeLogItem is the log item of c in the collection log: the change's kind, images and
// stream record, when it was logged, and its TTL (expires, in epoch seconds: DynamoDB deletes it
// within days after; reads leave it out from then on).
func changeLogItem(log string, c *Change, retention time.Duration) map[string]types.AttributeValue {
	item := changeLogKey(log, c.Position).Attributes()
	item[repository.AttrType] = repository.StringValue(typeChangeLog)
	item[attrLogKind] = repository.NumberValue(int(c.Kind))
	item[attrLogPos] = &types.AttributeValueMemberN{Value: strconv.FormatUint(c.Position, 10)}
	item[attrLogSeq], item[attrLogShard] = repository.StringValue(c.Sequence), repository.StringValue(c.Shard)
	item[attrLogAt] = &types.AttributeValueMemberN{Value: strconv.FormatInt(c.Logged.UnixMilli(), 10)}
	item[repository.AttrLogExpires] = &types.AttributeValueMemberN{Value: strconv.FormatInt(c.Logged.Add(retention).Unix(), 10)}
	if c.newItem != nil {
		item[attrLogNew] = &types.AttributeValueMemberM{Value: c.newItem}
	}
	if c.oldItem != nil {
		item[attrLogOld] = &types.AttributeValueMemberM{Value: c.oldItem}
	}
	return item
}

var _ = repository.DeclareItem(func() map[string]types.AttributeValue {
	return changeLogItem("<scope>", &Change{Kind: ChangeUpdated, Sequence: "<sequence>", Shard: "<shard>",
		newItem: map[string]types.AttributeValue{}, oldItem: map[string]types.AttributeValue{}}, time.Hour)
}, map[string]string{positionKey(0): positionPrefix + "<position, zero-padded to 20 digits>"})

// ChangesAfter reads one page of scope's log collection: at most limit changes after position
// after (0 for the oldest retained), in the log's order, those past the retention left out;
// more says whether the collection goes on. One Query (AP33).
func (r *Stream) ChangesAfter(ctx context.Context, scope ChangeScope, after uint64, limit int) (changes []Change, more bool, err error) {
	key := changeLogKey(scope.Log, after)
	in := ChangesOfScope.Input(r.Table(), key.PK, key.SK)
	in.FilterExpression = aws.String("#exp > :now")
	in.ExpressionAttributeNames = map[string]string{"#exp": repository.AttrLogExpires}
	in.ExpressionAttributeValues[":now"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(r.Now().Unix(), 10)}
	in.Limit = aws.Int32(int32(limit + 1))
	// QueryItems goes on past a first call whose items were all past the retention (filtered).
	items, err := r.QueryItems(ctx, in, limit+1)
	if err != nil {
		return nil, false, err
	}
	if more = len(items) > limit; more {
		items = items[:limit]
	}
	changes = make([]Change, 0, len(items))
	for _, item := range items {
		c, err := decodeLogItem(item)
		if err != nil {
			return nil, false, err
		}
		changes = append(changes, c)
	}
	return changes, more, nil
}

// decodeLogItem turns a log item back into the Change the reader appended, its images decoded
// by the same definitions as the stream's.
func decodeLogItem(item map[string]types.AttributeValue) (c Change, err error) {
	kind, _ := strconv.Atoi(numberAttr(item, attrLogKind))
	at, _ := strconv.ParseInt(numberAttr(item, attrLogAt), 10, 64)
	pos, _ := strconv.ParseUint(numberAttr(item, attrLogPos), 10, 64)
	c = Change{Kind: ChangeKind(kind), Sequence: repository.StringAttr(item, attrLogSeq), Shard: repository.StringAttr(item, attrLogShard), Position: pos, Logged: time.UnixMilli(at)}
	if m, ok := item[attrLogNew].(*types.AttributeValueMemberM); ok {
		if c.New, c.newItem, err = decodeEntityItem(m.Value); err != nil {
			return Change{}, err
		}
	}
	if m, ok := item[attrLogOld].(*types.AttributeValueMemberM); ok {
		if c.Old, c.oldItem, err = decodeEntityItem(m.Value); err != nil {
			return Change{}, err
		}
	}
	if e := c.Entity(); e != nil {
		c.Key = e.Key()
	}
	return c, nil
}

// numberAttr is a number attribute's digits ("" when absent).
func numberAttr(item map[string]types.AttributeValue, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberN); ok {
		return v.Value
	}
	return ""
}
