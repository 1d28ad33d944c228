package fleet

import (
	"context"
	"math"
	"time"

	"github.com/go-redis/redis_rate/v10"
)

// The buckets of the rate limiter and of the capacity budget, held in Redis so that a
// principal's limits hold across the fleet. redis_rate keeps one key per bucket, the theoretical
// arrival time of GCRA (the generic cell rate algorithm: a token bucket held as one timestamp),
// updated by one script, so that concurrent instances never lose a debit. The key expires once
// the bucket is full again: idle principals cost Redis nothing.

// gcra is the redis_rate limit of a bucket filling at rate tokens per second up to burst. Rates
// are given per 1,000 s so that fractional rates keep their precision.
func gcra(rate float64, burst int) redis_rate.Limit {
	return redis_rate.Limit{Rate: max(1, int(math.Round(rate*1000))), Burst: max(1, burst), Period: 1000 * time.Second}
}

// Allow takes one token from key's bucket (rate tokens per second, up to burst), or says how
// long until one is there.
func (f *Fleet) Allow(ctx context.Context, key string, rate float64, burst int) (ok bool, wait time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	res, err := f.limiter.AllowN(ctx, f.key("limit", key), gcra(rate, burst), 1)
	if err != nil {
		return false, 0, err
	}
	return res.Allowed > 0, max(0, res.RetryAfter), nil
}

// Reserve takes up to units tokens from key's bucket before an operation runs: as many as it
// holds, so that an operation priced above what is left (or above the burst) still runs while
// the bucket holds anything, and empties it. taken is 0, with the wait until a token is there,
// when the bucket is empty: the operation is refused. GCRA never lends: a bucket holds between
// none and burst tokens, so a fleet's principal cannot go into debt, where an instance's own
// bucket can by one operation's price.
func (f *Fleet) Reserve(ctx context.Context, key string, units int, rate float64, burst int) (taken int, wait time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	res, err := f.limiter.AllowAtMost(ctx, f.key("limit", key), gcra(rate, burst), max(1, units))
	if err != nil {
		return 0, 0, err
	}
	return res.Allowed, max(0, res.RetryAfter), nil
}

// Settle squares an operation's account once it ran: what it consumed beyond what it reserved is
// taken (as much as the bucket holds: GCRA does not go below empty, so an operation that
// consumed more than was left empties the bucket), what it reserved and did not consume is given
// back. It returns the tokens left.
func (f *Fleet) Settle(ctx context.Context, key string, reserved, consumed int, rate float64, burst int) (left int, err error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	k, limit := f.key("limit", key), gcra(rate, burst)
	var res *redis_rate.Result
	if extra := consumed - reserved; extra > 0 {
		res, err = f.limiter.AllowAtMost(ctx, k, limit, extra)
	} else {
		// A negative cost moves the arrival time back: the refund.
		res, err = f.limiter.AllowN(ctx, k, limit, extra)
	}
	if err != nil {
		return 0, err
	}
	return res.Remaining, nil
}
