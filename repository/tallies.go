package repository

import (
	"context"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// A tally is one counted collection (counters.go): which items count toward which counter of
// which parent, and how to walk the parents and read one parent's collection from the table. It
// is the one definition -recount (repository/maintenance/recount.go) counts with and the sample data is counted with.
type Tally struct {
	// Parent is the item type that keeps the counters, attrs the counters.
	Parent string
	Attrs  []string
	// Of names the parent and the counter an item counts toward; ok is false for an item of no
	// such collection. It reads only the attributes named by project.
	Of      func(item map[string]types.AttributeValue) (parent Key, attr string, ok bool)
	Project []string
	// Each walks every parent item, through Queries (never a Scan).
	Each func(ctx context.Context, r *Repo, fn func(Entity) error) error
	// Collection is the Query of one parent's collection (the table name is added).
	Collection func(parent Entity) *dynamodb.QueryInput
	// FromIndex says the collection is read from an index, which lags the table (see Recount).
	FromIndex bool
	// Weight is what an item adds to its counter (one when nil): a sum rather than a count, such
	// as a product's stock over its warehouses. It reads only the attributes named by project.
	Weight func(item map[string]types.AttributeValue) int
}

// add is what item adds to its counter.
func (t Tally) add(item map[string]types.AttributeValue) int {
	if t.Weight == nil {
		return 1
	}
	return t.Weight(item)
}

// Tallies are every counted collection, each registered by counted beside its domain's counters.
var Tallies []Tally

// Counted registers t among the tallies and returns it.
func Counted(t Tally) Tally {
	Tallies = append(Tallies, t)
	return t
}

// KeyQuery is a Query of partition pk with key condition cond (:pk, and :p when prefix is set).
func KeyQuery(cond, pk, prefix string) *dynamodb.QueryInput {
	values := map[string]types.AttributeValue{":pk": StringValue(pk)}
	if prefix != "" {
		values[":p"] = StringValue(prefix)
	}
	return &dynamodb.QueryInput{KeyConditionExpression: aws.String(cond), ExpressionAttributeValues: values}
}

// EntityFn adapts a function of entities to one of T.
func EntityFn[T Entity](fn func(Entity) error) func(T) error {
	return func(v T) error { return fn(v) }
}

// Count counts parent's collection by counter: one Query, page after page, of the attributes
// t.of reads. A collection on the table is read consistently; one on an index cannot be.
func (r *Repo) Count(ctx context.Context, t Tally, parent Entity) (map[string]int, error) {
	in := t.Collection(parent)
	in.TableName = aws.String(r.Table())
	in.ConsistentRead = aws.Bool(!t.FromIndex)
	names := make([]string, len(t.Project))
	in.ExpressionAttributeNames = map[string]string{}
	for i, a := range t.Project {
		names[i] = "#p" + strconv.Itoa(i)
		in.ExpressionAttributeNames[names[i]] = a
	}
	in.ProjectionExpression = aws.String(strings.Join(names, ", "))
	k := parent.Key()
	counts := make(map[string]int, len(t.Attrs))
	for {
		out, err := r.DB.Query(ctx, in)
		if err != nil {
			return nil, apperr.Classify("count", err)
		}
		for _, item := range out.Items {
			if p, attr, ok := t.Of(item); ok && p == k {
				counts[attr] += t.add(item)
			}
		}
		if out.LastEvaluatedKey == nil {
			return counts, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// CountSample sets the counters of the parents among items from the other items, as -recount
// would set them from the table: the sample data is loaded with exact counters.
func CountSample(items []map[string]types.AttributeValue) {
	counts := map[Key]map[string]int{}
	for _, item := range items {
		for _, t := range Tallies {
			if k, attr, ok := t.Of(item); ok {
				if counts[k] == nil {
					counts[k] = map[string]int{}
				}
				counts[k][attr] += t.add(item)
			}
		}
	}
	for _, item := range items {
		for _, t := range Tallies {
			if StringAttr(item, AttrType) != t.Parent {
				continue
			}
			k := Key{PK: StringAttr(item, AttrPK), SK: StringAttr(item, AttrSK)}
			for _, a := range t.Attrs {
				item[a] = NumberValue(counts[k][a])
			}
			item[AttrCounted] = &types.AttributeValueMemberBOOL{Value: true}
		}
	}
}
