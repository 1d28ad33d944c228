package commerce

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"singletable/apperr"
	"singletable/repository"
)

// Orders by status across all customers (AP20) live on GSI3, write-sharded:
// one status would otherwise be one index partition holding a large share of all orders, a hot
// partition for both the writes that move orders in and out of it and the reads that list it. So
// each status is split into N = ORDER_STATUS_SHARDS partitions, GSI3PK=ORDERSTATUS#<status>#<shard>,
// and a listing queries all N in parallel and merges them.
//
// Choosing N: a partition serves at most 3,000 read units a second, and one read unit reads 4 KB:
//
//	ItemsPerRCU          = 4 KB / AvgItemSize
//	PartitionMaxReadRate = 3K * ItemsPerRCU
//	N                    = MaxRequiredIO / PartitionMaxReadRate
//
// For example, 3M orders, 20% OPEN, 250 B per order → ItemsPerRCU = 16, rate = 48K,
// N = 0.2 * 3M / 48K = 12.5 → 13, rounded up to 15 for headroom. Our assumptions: an order item
// as stored is about 450 B (it carries its index keys, timestamps and idempotency key; the index
// projects only order records, not their items), so ItemsPerRCU = 4096 / 450 ≈ 9 and
// PartitionMaxReadRate = 27K; a store with up to 800K live orders of which at most 10% (80K) sit
// in the status a listing reads whole (OPEN or SHIPPED; DELIVERED and CANCELLED grow without end
// and are read by date range) gives N = 80K / 27K ≈ 2.96 → 3, rounded up to 4 for headroom:
// DefaultOrderStatusShards. A bigger N is not free: every page of ordersByStatus costs N Query
// calls, each reading up to first+1 orders.
//
// N must not shrink on a live table without a migration: an order's shard is its id's hash mod N,
// so orders written with a larger N sit in shards >= the new N, which no listing reads any more,
// until their status changes (the update recomputes the shard with the current N). Growing N is
// safe for reads (every old shard is < the new N) but leaves the old orders unevenly spread.

// OrdersByStatus lists the orders with one status across all customers, newest first, optionally
// within a placement time range (both bounds exclusive) (AP20). A page queries every shard of the
// status concurrently (exactly N Query calls, each Limit first+1, newest first, within the range)
// and merges the results by order id, newest first.
//
// The cursor is the id of the last order a page returned, bound to (status, range, N). Since every
// shard is sorted by the same key, the order id, the merge state after an order X is the same for
// all shards: everything newer than X was returned and nothing older. So the next page asks every
// shard for ids below X, and a walk sees every order exactly once, in order, as a walk of one
// unsharded partition would. (A per-shard list of positions would say the same thing in N times
// the space: at a large N it would no longer fit a cursor.)
func (r *Commerce) OrdersByStatus(ctx context.Context, status OrderStatus, placedAfter, placedBefore *time.Time, args repository.PageArgs) (repository.Page[*Order], error) {
	if err := args.Validate(); err != nil {
		return repository.Page[*Order]{}, err
	}
	if !status.valid() {
		return repository.Page[*Order]{}, apperr.InvalidInput("status", "unknown order status")
	}
	lo, hi, ok := repository.IDRange(placedAfter, placedBefore)
	scope := repository.Join("ordersByStatus", string(status), lo, hi, strconv.Itoa(r.Shards))
	if args.After != "" {
		vals, err := r.Cursors.Decode(scope, args.After, 1)
		if err != nil {
			return repository.Page[*Order]{}, err
		}
		if !repository.ValidID(vals[0]) {
			return repository.Page[*Order]{}, repository.ErrBadCursor
		}
		below, more := repository.IDBefore(vals[0])
		ok = ok && more
		hi = min(hi, below)
		ok = ok && lo <= hi
	}
	if !ok {
		return repository.Page[*Order]{HasPreviousPage: args.After != ""}, nil
	}
	shards := make([][]map[string]types.AttributeValue, r.Shards)
	// The page fails if one shard's read fails: the group's context stops the other reads then.
	g, ctx := errgroup.WithContext(ctx)
	for shard := range r.Shards {
		g.Go(func() error {
			in := OrdersByStatus.Input(r.Table(), orderStatusShardPK(status, shard), lo, hi)
			in.Limit = aws.Int32(int32(args.First + 1))
			items, err := r.QueryItems(ctx, in, args.First+1)
			shards[shard] = items
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return repository.Page[*Order]{}, err
	}
	// Each shard returned its newest first+1 orders of the range, so the newest first+1 of all
	// shards are among them.
	merged := slices.Concat(shards...)
	slices.SortFunc(merged, func(a, b map[string]types.AttributeValue) int {
		return cmp.Or(cmp.Compare(repository.StringAttr(b, repository.AttrGSI3SK), repository.StringAttr(a, repository.AttrGSI3SK)), cmp.Compare(repository.StringAttr(b, repository.AttrPK), repository.StringAttr(a, repository.AttrPK)))
	})
	merged = merged[:min(len(merged), args.First+1)]
	orders, err := repository.DecodeAll[*Order](merged)
	if err != nil {
		return repository.Page[*Order]{}, err
	}
	return repository.FinishPage(r.Repo, scope, []string{repository.AttrGSI3SK}, orders, merged, args), nil
}
