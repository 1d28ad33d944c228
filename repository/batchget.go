package repository

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// maxBatchGetKeys is BatchGetItem's limit of keys per call.
const maxBatchGetKeys = 100

// BatchGet reads the items at keys and decodes each into its entity. It removes duplicate keys,
// sends ⌈unique keys / 100⌉ BatchGetItem calls concurrently, and retries UnprocessedKeys with
// exponential backoff and full jitter up to a bound (then UNAVAILABLE). BatchGetItem returns items
// in no particular order, so the result is keyed: callers look their keys up in it to answer in
// key order. A key whose item does not exist is absent from the map.
func (r *Repo) BatchGet(ctx context.Context, keys []Key) (map[Key]Entity, error) {
	return r.batchGet(ctx, keys, false)
}

// batchGet is BatchGet; consistent asks for strongly consistent reads (write paths, see
// readConsistent). An item with a declared parent (DeclareParent: a user or a ticket, whose
// organization it is) lives only as long as the parent: an organization being removed hides its
// users and tickets at once, not when the sweep reaches them. So the parent of every such item
// asked for is read in the same calls (one key per parent, however many of its children are asked
// for), and a child whose parent is missing or marked is answered as missing.
func (r *Repo) batchGet(ctx context.Context, keys []Key, consistent bool) (map[Key]Entity, error) {
	unique := uniqueKeys(keys)
	parents := map[Key]Key{}
	var extra []Key
	asked := make(map[Key]struct{}, len(unique))
	for _, k := range unique {
		asked[k] = struct{}{}
	}
	for _, k := range unique {
		org, ok := parentOrg(k)
		if !ok {
			continue
		}
		parents[k] = org
		if _, have := asked[org]; !have {
			asked[org] = struct{}{}
			extra = append(extra, org)
		}
	}
	found, err := r.batchGetRaw(ctx, append(unique, extra...), consistent)
	if err != nil {
		return nil, err
	}
	for child, org := range parents {
		if _, live := found[org]; !live {
			delete(found, child)
		}
	}
	for _, org := range extra {
		delete(found, org)
	}
	return found, nil
}

// uniqueKeys is keys without repeats, in their order.
func uniqueKeys(keys []Key) []Key {
	unique := make([]Key, 0, len(keys))
	seen := make(map[Key]struct{}, len(keys))
	for _, k := range keys {
		if _, dup := seen[k]; !dup {
			seen[k] = struct{}{}
			unique = append(unique, k)
		}
	}
	return unique
}

// parentRules say which items live only as long as a parent item: a rule maps an item's key to
// its parent's (ok false for keys it does not cover). The domain that keys such items declares
// the rule (DeclareParent): a user's and a ticket's item name their organization.
var parentRules []func(Key) (Key, bool)

// DeclareParent adds a rule to parentRules. It returns true, so that a domain declares its rules
// in a package-level var.
func DeclareParent(rule func(Key) (parent Key, ok bool)) bool {
	parentRules = append(parentRules, rule)
	return true
}

// parentOrg is the key of the parent the item at k lives as long as, by the declared rules; ok is
// false for an item without one.
func parentOrg(k Key) (Key, bool) {
	for _, rule := range parentRules {
		if p, ok := rule(k); ok {
			return p, true
		}
	}
	return Key{}, false
}

// KeysPerObject is how many keys BatchGet asks for per object a lookup of p names: the object's
// own and, for a user or a ticket, its organization's (see batchGet), found by the rule BatchGet
// itself follows (parentOrg) applied to p's key spelling, so that a plan counts the keys the
// batch sends. It is counted without removing duplicates, as every key is.
func (p AccessPattern) KeysPerObject() int {
	if p.Sort == SortKeyIs {
		if _, ok := parentOrg(Key{PK: p.PartitionKey, SK: p.SortKey[0]}); ok {
			return 2
		}
	}
	return 1
}

// batchGetRaw reads the items at keys (distinct) as they are, in ⌈keys / 100⌉ concurrent calls:
// the sweep reads its own users with it, which their organization's mark hides from every other
// reader.
func (r *Repo) batchGetRaw(ctx context.Context, unique []Key, consistent bool) (map[Key]Entity, error) {
	found := make(map[Key]Entity, len(unique))
	if len(unique) == 0 {
		return found, nil
	}
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
	)
	for start := 0; start < len(unique); start += maxBatchGetKeys {
		chunk := unique[start:min(start+maxBatchGetKeys, len(unique))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			items, err := r.batchGetChunk(ctx, chunk, consistent)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			for k, e := range items {
				found[k] = e
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return found, nil
}

// Get reads one item with GetItem. The API itself always batches lookups; Get serves the
// per-parent baseline that benchmarks compare against (loaders/perparent).
func (r *Repo) Get(ctx context.Context, k Key) (Entity, error) {
	out, err := r.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.Table()), Key: k.Attributes()})
	if err != nil {
		return nil, apperr.Classify("get item", err)
	}
	if out.Item == nil {
		return nil, apperr.NotFound("item")
	}
	return DecodeEntity(out.Item)
}

// batchGetChunk reads at most 100 distinct keys, retrying UnprocessedKeys. consistent asks for
// strongly consistent reads (write paths; see readConsistent).
func (r *Repo) batchGetChunk(ctx context.Context, keys []Key, consistent bool) (map[Key]Entity, error) {
	req := keyItems(keys)
	found := make(map[Key]Entity, len(keys))
	for attempt := 0; ; attempt++ {
		out, err := r.DB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
			RequestItems: map[string]types.KeysAndAttributes{r.Table(): {Keys: req, ConsistentRead: aws.Bool(consistent)}},
		})
		if err != nil {
			return nil, apperr.Classify("batch get", err)
		}
		for _, item := range out.Responses[r.Table()] {
			if _, removing := item[AttrDeleting]; removing {
				continue // being removed by a sweep: answered as missing
			}
			e, err := DecodeEntity(item)
			if err != nil {
				return nil, err
			}
			// The key the item was read at, which is the key asked for: the item's own key
			// attributes. e.Key() would build its strings anew.
			found[Key{PK: StringAttr(item, AttrPK), SK: StringAttr(item, AttrSK)}] = e
		}
		req = out.UnprocessedKeys[r.Table()].Keys
		if len(req) == 0 {
			return found, nil
		}
		if attempt+1 >= r.attempts {
			return nil, &apperr.Error{Code: apperr.CodeUnavailable, Message: "the database is busy; retry later"}
		}
		if err := SleepCtx(ctx, r.BackoffFn(attempt)); err != nil {
			return nil, apperr.Classify("batch get backoff", err)
		}
	}
}

// Backoff is "full jitter" exponential backoff: a random wait in [0, min(cap, base·2^attempt)).
func Backoff(attempt int) time.Duration {
	const base, ceiling = 25 * time.Millisecond, 2 * time.Second
	d := ceiling
	if attempt < 16 {
		d = min(ceiling, base<<attempt)
	}
	return rand.N(d) + time.Millisecond
}

func SleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Attributes is k as the key attributes of a request. Its two values are allocated together.
func (k Key) Attributes() map[string]types.AttributeValue {
	v := &[2]types.AttributeValueMemberS{{Value: k.PK}, {Value: k.SK}}
	return map[string]types.AttributeValue{AttrPK: &v[0], AttrSK: &v[1]}
}

// keyItems is keys as the key attributes of a BatchGetItem request: one map per key (the SDK's
// type), and all their values in one allocation.
func keyItems(keys []Key) []map[string]types.AttributeValue {
	vals := make([]types.AttributeValueMemberS, 2*len(keys))
	items := make([]map[string]types.AttributeValue, len(keys))
	for i, k := range keys {
		pk, sk := &vals[2*i], &vals[2*i+1]
		pk.Value, sk.Value = k.PK, k.SK
		items[i] = map[string]types.AttributeValue{AttrPK: pk, AttrSK: sk}
	}
	return items
}
