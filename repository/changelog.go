package repository

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// The change log (delta sync): the stream's reader appends every change of an object a
// subscription can name to the log collection of each scope the object lies in (changeLogs),
// before it hands the change to the subscriptions. A client that was away replays the changes
// after its cursor from the log with one Query per page, then continues live.
//
// Idempotent and ordered: a log item's sort key is the stream record's sequence number, and the
// append is a PutItem conditional on the item not existing. A record read twice (a fleet's new
// reader resuming from the previous one's checkpoint, a restarted shard) is the same key: the
// second append is refused and changes nothing, so each change is in the log once, at the
// position of its record. The reader appends a shard's changes one after the other before it
// dispatches them, so a change read from the log (or delivered live) has every change of its
// shard before it appended already: a position once read never gets an earlier neighbour.

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
	attrLogSeq     = "seq"
	attrLogShard   = "shard"
	attrLogAt      = "at"
	attrLogExpires = "expires"
	attrLogNew     = "new"
	attrLogOld     = "old"
)

// changeLogUsage counts the log items appended and the write capacity they consumed: what the
// log costs, which the benchmark reports per change.
type changeLogUsage struct {
	mu    sync.Mutex
	items int
	wcu   float64
}

func (u *changeLogUsage) add(c *types.ConsumedCapacity) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.items++
	if c != nil {
		u.wcu += aws.ToFloat64(c.CapacityUnits)
	}
}

// ChangeLogUsage is how many log items this Repo appended, and the write capacity units they
// consumed (as DynamoDB reported them).
func (r *Repo) ChangeLogUsage() (items int, wcu float64) {
	r.logUsage.mu.Lock()
	defer r.logUsage.mu.Unlock()
	return r.logUsage.items, r.logUsage.wcu
}

// ChangeRetention is how long a change stays in the log (CHANGE_RETENTION).
func (r *Repo) ChangeRetention() time.Duration { return r.retention }

// appendChanges appends a batch of one shard's changes to the log, in order, stamping each with
// the time it was logged (Change.Logged, which its cursor carries). A change that is in the log
// already (a record read again) keeps its position. It stops at the first failure: the reader
// retries the batch, and what was appended already is not appended twice.
func (r *Repo) appendChanges(ctx context.Context, batch []Change) error {
	for i := range batch {
		c := &batch[i]
		if c.Logged.IsZero() {
			c.Logged = r.now()
		}
		for _, log := range changeLogs(*c) {
			if err := r.appendChange(ctx, log, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendChange puts one log item unless it exists.
func (r *Repo) appendChange(ctx context.Context, log string, c *Change) error {
	item := changeLogItem(log, c, r.retention)
	out, err := r.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(r.table), Item: item,
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK},
		ReturnConsumedCapacity:   types.ReturnConsumedCapacityTotal,
	})
	if err == nil {
		r.logUsage.add(out.ConsumedCapacity)
	}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil // appended before: by this reader before a retry, or by the previous reader
	}
	if err != nil {
		return apperr.Classify("append change", err)
	}
	return nil
}

// changeLogItem is the log item of c in the collection log: the change's kind, images and
// stream record, when it was logged, and its TTL (expires, in epoch seconds: DynamoDB deletes it
// within days after; reads leave it out from then on).
func changeLogItem(log string, c *Change, retention time.Duration) map[string]types.AttributeValue {
	item := changeLogKey(log, c.Sequence).attributes()
	item[attrType] = s(typeChangeLog)
	item[attrLogKind] = n(int(c.Kind))
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

// ChangesAfter reads one page of scope's log collection: at most limit changes after the one
// with sequence number after ("" for the oldest retained), in the log's order, those past the
// retention left out; more says whether the collection goes on. One Query (AP33).
func (r *Repo) ChangesAfter(ctx context.Context, scope ChangeScope, after string, limit int) (changes []Change, more bool, err error) {
	key := changeLogKey(scope.Log, "0")
	in := &dynamodb.QueryInput{
		TableName:                aws.String(r.table),
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk > :after"),
		FilterExpression:         aws.String("#exp > :now"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#sk": attrSK, "#exp": attrLogExpires},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": s(key.PK), ":after": s(padSequence(after)),
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
	c = Change{Kind: ChangeKind(kind), Sequence: stringAttr(item, attrLogSeq), Shard: stringAttr(item, attrLogShard), Logged: time.UnixMilli(at)}
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
