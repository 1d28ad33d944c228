package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The persisted queries (automatic persisted queries: a document registered by its hash, then
// sent as the hash alone), held in Redis so that a document registered through one instance is
// found by every other. Entries belong to a principal as in the in-process cache: a hash finds
// only documents its own principal registered. Each document expires PersistedQueryTTL after it
// was last registered, and a principal keeps at most MaxPersistedPerPrincipal of them (its oldest
// go first), so no principal can fill Redis; Redis's own maxmemory bounds the whole.

// Bounds of the persisted queries in Redis.
const (
	PersistedQueryTTL        = 24 * time.Hour
	MaxPersistedPerPrincipal = 1000
)

// principalID names a principal in keys: a hash, since a subject may hold any character and any
// length.
func principalID(principal string) string {
	h := sha256.Sum256([]byte(principal))
	return hex.EncodeToString(h[:16])
}

// PersistedQuery returns the document principal registered under hash.
func (f *Fleet) PersistedQuery(ctx context.Context, principal, hash string) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	q, err := f.rdb.Get(ctx, f.key("apq", principalID(principal), hash)).Result()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	return q, err == nil, err
}

// PersistQuery registers principal's document under hash, and drops the principal's oldest
// documents past MaxPersistedPerPrincipal.
func (f *Fleet) PersistQuery(ctx context.Context, principal, hash, query string) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return persistScript.Run(ctx, f.rdb, []string{f.key("apq", principalID(principal), ""), f.key("apqindex", principalID(principal))},
		hash, query, PersistedQueryTTL.Milliseconds(), MaxPersistedPerPrincipal, strconv.FormatInt(time.Now().UnixMilli(), 10)).Err()
}

// persistScript stores one document and keeps the principal's index (a sorted set of its hashes
// by registration time) within the bound, atomically. KEYS: the principal's document key prefix,
// its index; ARGV: hash, document, TTL (ms), bound, now (ms).
var persistScript = redis.NewScript(`
local prefix, index = KEYS[1], KEYS[2]
local hash, doc, ttl, bound, now = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call("SET", prefix .. hash, doc, "PX", ttl)
redis.call("ZADD", index, now, hash)
redis.call("ZREMRANGEBYSCORE", index, "-inf", now - ttl)
local extra = redis.call("ZCARD", index) - bound
if extra > 0 then
  local popped = redis.call("ZPOPMIN", index, extra)
  for i = 1, #popped, 2 do redis.call("DEL", prefix .. popped[i]) end
end
redis.call("PEXPIRE", index, ttl)
return 1
`)
