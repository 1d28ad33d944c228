package repository

import (
	"context"
	"crypto/sha256"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/oklog/ulid/v2"

	"singletable/apperr"
)

// BatchWrite puts items 25 at a time, retrying UnprocessedItems with backoff.
func (r *Repo) BatchWrite(ctx context.Context, items []map[string]types.AttributeValue) error {
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
				if err := SleepCtx(ctx, r.BackoffFn(attempt)); err != nil {
					return apperr.Classify("batch write", err)
				}
			}
			out, err := r.DB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{r.Table(): reqs}})
			if err != nil {
				return apperr.Classify("batch write", err)
			}
			reqs = out.UnprocessedItems[r.Table()]
		}
	}
	return nil
}

// SeedID is a fixed id: the ULID of time t whose random part is derived from label.
func SeedID(t time.Time, label string) string {
	var u ulid.ULID
	h := sha256.Sum256([]byte(label))
	copy(u[6:], h[:10])
	_ = u.SetTime(ulid.Timestamp(t))
	return u.String()
}

// TypeSeedMarker is the item that records a loaded sample dataset.
const TypeSeedMarker = "SeedMarker"

// SeedMarkerKey records that the sample dataset of a given version was loaded.
func SeedMarkerKey(version string) Key { return Key{PK: "SEED", SK: Join("VERSION", Escape(version))} }

var _ = DeclareItem(func() map[string]types.AttributeValue {
	marker := SeedMarkerKey("<version>").Attributes()
	marker[AttrType] = StringValue(TypeSeedMarker)
	return marker
}, nil)
