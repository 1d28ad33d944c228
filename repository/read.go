package repository

import (
	"context"
	"math"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ReadConsistent reads the items at keys with strongly consistent BatchGetItem calls: write paths
// read what their transaction then conditions on, and a stale read would only turn into a
// needless CONFLICT. Missing items are absent from the map.
func (r *Repo) ReadConsistent(ctx context.Context, keys ...Key) (map[Key]Entity, error) {
	return r.batchGet(ctx, keys, true)
}

// FoundAs is the entity of type T at k in a readConsistent result.
func FoundAs[T Entity](found map[Key]Entity, k Key) (T, bool) {
	v, ok := found[k].(T)
	return v, ok
}

// QueryAll runs a Query to the end of its key range.
func (r *Repo) QueryAll(ctx context.Context, in *dynamodb.QueryInput) ([]map[string]types.AttributeValue, error) {
	return r.QueryItems(ctx, in, math.MaxInt)
}

// ReadOneConsistent reads one item with a strongly consistent read (nil if absent). It is a Query on
// the full key rather than a GetItem: lookups on request paths go through the batching loaders,
// and this one, on a mutation's retry path, must see the latest committed write.
func (r *Repo) ReadOneConsistent(ctx context.Context, k Key) (map[string]types.AttributeValue, error) {
	items, err := r.QueryItems(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(r.Table()),
		KeyConditionExpression:    aws.String("PK = :pk AND SK = :sk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": StringValue(k.PK), ":sk": StringValue(k.SK)},
		ConsistentRead:            aws.Bool(true),
	}, 1)
	if err != nil || len(items) == 0 {
		return nil, err
	}
	return items[0], nil
}

// ReadLive reads the item at k consistently, as a T: onMissing if there is none, or if it is
// being removed.
func ReadLive[T Entity](ctx context.Context, r *Repo, k Key, onMissing error) (T, error) {
	var zero T
	found, err := r.ReadConsistent(ctx, k)
	if err != nil {
		return zero, err
	}
	v, ok := FoundAs[T](found, k)
	if !ok {
		return zero, onMissing
	}
	return v, nil
}
