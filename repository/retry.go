package repository

import (
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DefaultMaxAttempts is how often the SDK tries one DynamoDB call (the first try included)
// before it gives up on throttling or a transient error. The SDK's default of 3 fails a third
// of reads when one call in three is throttled. With 10 tries one call in about 60,000 still
// fails at that rate (3^-10), which a nested read of a few thousand calls meets now and then;
// 14 tries make it one in 4.8 million, and their waits (below) add up to 17 s at the very
// most, about half that on average, inside the 30 s request deadline.
const DefaultMaxAttempts = 14

// newRetryer is the SDK retryer of every call:
//   - throttling (ProvisionedThroughputExceeded, RequestLimitExceeded, ThrottlingException),
//     5xx answers and network errors are retried, and so is a transaction cancelled only by
//     throttling or a conflicting transaction (the SDK sends the same ClientRequestToken on
//     every try, so a retried TransactWriteItems cannot apply twice);
//   - the wait before try n is uniform in [0, min(2 s, 25 ms × 2^n)): capped exponential
//     backoff with full jitter, so that throttled calls spread out instead of retrying in step;
//   - no client-side retry quota (ratelimit.None): the SDK's default token bucket turns a
//     burst of throttling into failures as soon as its quota is spent, which is the opposite of
//     what a request that still has time left needs;
//   - every wait is cut short by the request's context, so retries never outlive the
//     request's deadline.
func newRetryer(maxAttempts int) aws.Retryer {
	if maxAttempts <= 0 {
		maxAttempts = DefaultMaxAttempts
	}
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = maxAttempts
		o.MaxBackoff = 2 * time.Second
		o.Backoff = retry.BackoffDelayerFunc(func(attempt int, _ error) (time.Duration, error) {
			return Backoff(attempt - 1), nil
		})
		o.RateLimiter = ratelimit.None
		o.Retryables = append(append([]retry.IsErrorRetryable{}, o.Retryables...), retry.IsErrorRetryableFunc(retryableCancellation))
	})
}

// retryableCancellation says a cancelled transaction may be tried again: every reason is a
// throttle or a conflicting transaction, none a failed condition or a validation error.
func retryableCancellation(err error) aws.Ternary {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || len(tce.CancellationReasons) == 0 {
		return aws.UnknownTernary
	}
	transient := false
	for _, r := range tce.CancellationReasons {
		switch aws.ToString(r.Code) {
		case "None", "":
		case "ThrottlingError", "ProvisionedThroughputExceeded", "TransactionConflict":
			transient = true
		default:
			return aws.FalseTernary
		}
	}
	return aws.BoolTernary(transient)
}
