package repository

import (
	"context"
	"crypto/sha256"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/oklog/ulid/v2"

	"singletable/apperr"
)

// SeedVersion names the sample dataset; bump it when the dataset changes.
const SeedVersion = "2026-11-saas-v2+commerce-v3+hr-v3+catalog-v1+reps-v1"

// SeedStats says what Seed did.
type SeedStats struct {
	AlreadyLoaded bool
	Items         int
}

// Seed loads the sample dataset for the playground. It is idempotent: every sample item has a
// fixed key (ids are derived from fixed times and labels), so a rerun rewrites the same items, and
// a marker item written last makes later runs return at once.
func (r *Repo) Seed(ctx context.Context) (SeedStats, error) {
	marker := seedMarkerKey(SeedVersion)
	out, err := r.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.table), Key: marker.Attributes(), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return SeedStats{}, apperr.Classify("seed marker", err)
	}
	if out.Item != nil {
		return SeedStats{AlreadyLoaded: true}, nil
	}
	items, err := sampleItems(r.shards)
	if err != nil {
		return SeedStats{}, err
	}
	if err := r.batchWrite(ctx, items); err != nil {
		return SeedStats{}, err
	}
	m := marker.Attributes()
	m[AttrType] = StringValue(TypeSeedMarker)
	if _, err := r.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.table), Item: m}); err != nil {
		return SeedStats{}, apperr.Classify("seed marker", err)
	}
	return SeedStats{Items: len(items)}, nil
}

// batchWrite puts items 25 at a time, retrying UnprocessedItems with backoff.
func (r *Repo) batchWrite(ctx context.Context, items []map[string]types.AttributeValue) error {
	reqs := make([]types.WriteRequest, len(items))
	for i, it := range items {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
	}
	return r.batchWriteRequests(ctx, reqs)
}

// batchWriteRequests sends the requests 25 at a time, retrying UnprocessedItems with backoff.
func (r *Repo) batchWriteRequests(ctx context.Context, all []types.WriteRequest) error {
	for start := 0; start < len(all); start += 25 {
		reqs := all[start:min(start+25, len(all))]
		for attempt := 0; len(reqs) > 0; attempt++ {
			if attempt >= r.attempts {
				return &apperr.Error{Code: apperr.CodeUnavailable, Message: "the database is busy; retry later"}
			}
			if attempt > 0 {
				if err := SleepCtx(ctx, r.backoffFn(attempt)); err != nil {
					return apperr.Classify("batch write", err)
				}
			}
			out, err := r.DB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{r.table: reqs}})
			if err != nil {
				return apperr.Classify("batch write", err)
			}
			reqs = out.UnprocessedItems[r.table]
		}
	}
	return nil
}

// seedID is a fixed id: the ULID of time t whose random part is derived from label.
func seedID(t time.Time, label string) string {
	var u ulid.ULID
	h := sha256.Sum256([]byte(label))
	copy(u[6:], h[:10])
	_ = u.SetTime(ulid.Timestamp(t))
	return u.String()
}

// typeSeedMarker is the item that records a loaded sample dataset.
const TypeSeedMarker = "SeedMarker"

// seedMarkerKey records that the sample dataset of a given version was loaded.
func seedMarkerKey(version string) Key { return Key{PK: "SEED", SK: join("VERSION", Escape(version))} }

var _ = DeclareItem(func() map[string]types.AttributeValue {
	marker := seedMarkerKey("<version>").Attributes()
	marker[AttrType] = StringValue(TypeSeedMarker)
	return marker
}, nil)
