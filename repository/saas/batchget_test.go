package saas

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/repotest"
)

// newLocalRepo is the SaaS of a fresh table on DynamoDB Local (repotest.NewRepo), in a database of
// its own unless cfg names one, with the settings cfg sets.
func newLocalRepo(t *testing.T, cfg repository.Config) *SaaS {
	t.Helper()
	return New(repotest.NewRepo(t, repotest.With(cfg)))
}

// throttleBatchGets makes DynamoDB Local behave like a throttled table: for the first `times`
// BatchGetItem calls, half of the items it returns are moved to UnprocessedKeys, as DynamoDB does
// when a call exceeds the provisioned throughput or the 16 MB response limit.
func throttleBatchGets(times int64) (func(*middleware.Stack) error, *atomic.Int64) {
	var n atomic.Int64
	return func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("InjectUnprocessedKeys",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				res, ok := out.Result.(*dynamodb.BatchGetItemOutput)
				if err != nil || !ok || n.Add(1) > times {
					return out, md, err
				}
				for table, items := range res.Responses {
					keep, drop := items[:len(items)/2], items[len(items)/2:]
					res.Responses[table] = keep
					var keys []map[string]types.AttributeValue
					for _, item := range drop {
						keys = append(keys, map[string]types.AttributeValue{repository.AttrPK: item[repository.AttrPK], repository.AttrSK: item[repository.AttrSK]})
					}
					if len(keys) > 0 {
						res.UnprocessedKeys = map[string]types.KeysAndAttributes{table: {Keys: keys}}
					}
				}
				return out, md, err
			}), middleware.Before)
	}, &n
}

func createOrgs(t *testing.T, r *SaaS, n int) []*Organization {
	t.Helper()
	orgs := make([]*Organization, n)
	for i := range orgs {
		o, err := r.CreateOrganization(context.Background(), fmt.Sprintf("org %03d", i))
		if err != nil {
			t.Fatal(err)
		}
		orgs[i] = o
	}
	return orgs
}

// BatchGet removes duplicates, sends ⌈unique keys / 100⌉ calls, and leaves missing keys out.
func TestBatchGetChunksAndDeduplicates(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	orgs := createOrgs(t, r, 250)
	var keys []repository.Key
	for _, o := range orgs {
		keys = append(keys, o.Key(), o.Key()) // every key twice
	}
	missing := OrgKey("01J00000000000000000000000")
	keys = append(keys, missing)
	ctx, m := repository.WithMeter(context.Background())
	got, err := r.BatchGet(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 250 {
		t.Fatalf("got %d entities, want 250", len(got))
	}
	for _, o := range orgs {
		if e, ok := got[o.Key()].(*Organization); !ok || e.Name != o.Name {
			t.Fatalf("entity for %v: %#v", o.Key(), got[o.Key()])
		}
	}
	if _, ok := got[missing]; ok {
		t.Fatal("a missing key must be absent from the result")
	}
	if c := m.Usage().Calls["BatchGetItem"]; c != 3 {
		t.Fatalf("BatchGetItem calls = %d, want ⌈251/100⌉ = 3", c)
	}
}

func TestBatchGetRetriesUnprocessedKeys(t *testing.T) {
	inject, injected := throttleBatchGets(3)
	r := newLocalRepo(t, repository.Config{APIOptions: []func(*middleware.Stack) error{inject}})
	var waits []time.Duration
	r.BackoffFn = func(attempt int) time.Duration {
		d := repository.Backoff(attempt)
		waits = append(waits, d)
		return time.Millisecond
	}
	orgs := createOrgs(t, r, 8)
	var keys []repository.Key
	for _, o := range orgs {
		keys = append(keys, o.Key())
	}
	ctx, m := repository.WithMeter(context.Background())
	got, err := r.BatchGet(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 8 {
		t.Fatalf("got %d of 8 entities after retries", len(got))
	}
	// 8 keys: 4 unprocessed, then 2, then 1, then none.
	if c := m.Usage().Calls["BatchGetItem"]; c != 4 || injected.Load() != 4 {
		t.Fatalf("BatchGetItem calls = %d, want 4", c)
	}
	if len(waits) != 3 {
		t.Fatalf("backed off %d times, want 3", len(waits))
	}
}

func TestBatchGetGivesUpAfterItsBound(t *testing.T) {
	inject, _ := throttleBatchGets(1000)
	r := newLocalRepo(t, repository.Config{MaxBatchAttempts: 3, APIOptions: []func(*middleware.Stack) error{inject}})
	r.BackoffFn = func(int) time.Duration { return time.Millisecond }
	orgs := createOrgs(t, r, 4)
	_, err := r.BatchGet(context.Background(), []repository.Key{orgs[0].Key(), orgs[1].Key(), orgs[2].Key(), orgs[3].Key()})
	if apperr.CodeOf(err) != apperr.CodeUnavailable {
		t.Fatalf("err = %v, want UNAVAILABLE once the retries are spent", err)
	}
}
