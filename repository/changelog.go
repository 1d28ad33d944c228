package repository

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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

// DefaultChangeRetention is Config.ChangeRetention when zero: a week of changes, longer than a
// laptop's weekend asleep, for about one write unit per change and scope (docs/data-model.md).
const DefaultChangeRetention = 168 * time.Hour

// MaxChangesPage and DefaultChangesPage are the most changes a pull of the log returns per page
// (`first`), and how many without `first`.
const (
	MaxChangesPage     = 500
	DefaultChangesPage = 100
)

// Attributes of a log item.
const (
	attrLogKind    = "kind"
	attrLogPos     = "pos"
	attrLogSeq     = "seq"
	attrLogShard   = "shard"
	attrLogAt      = "at"
	attrLogExpires = "expires"
	attrLogNew     = "new"
	attrLogOld     = "old"
)

// changeLogUsage counts what the log cost: what the benchmark reports per change.
type changeLogUsage struct {
	mu sync.Mutex
	ChangeLogUsage
}

// ChangeLogUsage is what a Repo's appends to the change log wrote: the log items, the chunks
// (transactions), the changes numbered, the log items' estimated bytes, the write capacity units
// the transactions consumed with the log's head and checkpoints (as DynamoDB reported them), and
// the units DynamoDB bills a transaction on AWS, from the items' sizes (Billed: 2 per item and KB).
type ChangeLogUsage struct {
	Items, Chunks, Changes, Bytes int
	WCU, Billed                   float64
}

func (u *changeLogUsage) add(chunk ChangeLogUsage, consumed []types.ConsumedCapacity) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.Items, u.Changes, u.Bytes = u.Items+chunk.Items, u.Changes+chunk.Changes, u.Bytes+chunk.Bytes
	u.Chunks, u.Billed = u.Chunks+1, u.Billed+chunk.Billed
	for _, c := range consumed {
		u.WCU += aws.ToFloat64(c.CapacityUnits)
	}
}

// LogUsage is what this Repo's appends to the change log wrote so far.
func (r *Repo) LogUsage() ChangeLogUsage {
	r.logUsage.mu.Lock()
	defer r.logUsage.mu.Unlock()
	return r.logUsage.ChangeLogUsage
}

// ChangeRetention is how long a change stays in the log (CHANGE_RETENTION).
func (r *Repo) ChangeRetention() time.Duration { return r.retention }

// changeLogItem is the log item of c in the collection log: the change's kind, images and
// stream record, when it was logged, and its TTL (expires, in epoch seconds: DynamoDB deletes it
// within days after; reads leave it out from then on).
func changeLogItem(log string, c *Change, retention time.Duration) map[string]types.AttributeValue {
	item := changeLogKey(log, c.Position).attributes()
	item[attrType] = s(typeChangeLog)
	item[attrLogKind] = n(int(c.Kind))
	item[attrLogPos] = &types.AttributeValueMemberN{Value: strconv.FormatUint(c.Position, 10)}
	item[attrLogSeq], item[attrLogShard] = s(c.Sequence), s(c.Shard)
	item[attrLogAt] = &types.AttributeValueMemberN{Value: strconv.FormatInt(c.Logged.UnixMilli(), 10)}
	item[attrLogExpires] = &types.AttributeValueMemberN{Value: strconv.FormatInt(c.Logged.Add(retention).Unix(), 10)}
	if c.newItem != nil {
		item[attrLogNew] = &types.AttributeValueMemberM{Value: c.newItem}
	}
	if c.oldItem != nil {
		item[attrLogOld] = &types.AttributeValueMemberM{Value: c.oldItem}
	}
	return item
}

// ChangesAfter reads one page of scope's log collection: at most limit changes after position
// after (0 for the oldest retained), in the log's order, those past the retention left out;
// more says whether the collection goes on. One Query (AP33).
func (r *Repo) ChangesAfter(ctx context.Context, scope ChangeScope, after uint64, limit int) (changes []Change, more bool, err error) {
	key := changeLogKey(scope.Log, after)
	in := &dynamodb.QueryInput{
		TableName:                aws.String(r.table),
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk > :after"),
		FilterExpression:         aws.String("#exp > :now"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#sk": attrSK, "#exp": attrLogExpires},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": s(key.PK), ":after": s(key.SK),
			":now": &types.AttributeValueMemberN{Value: strconv.FormatInt(r.now().Unix(), 10)},
		},
		Limit: aws.Int32(int32(limit + 1)),
	}
	// queryItems goes on past a first call whose items were all past the retention (filtered).
	items, err := r.queryItems(ctx, in, limit+1)
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
	c = Change{Kind: ChangeKind(kind), Sequence: stringAttr(item, attrLogSeq), Shard: stringAttr(item, attrLogShard), Position: pos, Logged: time.UnixMilli(at)}
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
