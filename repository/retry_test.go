package repository

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestRetryableCancellation(t *testing.T) {
	cancelled := func(codes ...string) error {
		var rs []types.CancellationReason
		for _, c := range codes {
			rs = append(rs, types.CancellationReason{Code: aws.String(c)})
		}
		return fmt.Errorf("op: %w", &types.TransactionCanceledException{CancellationReasons: rs})
	}
	cases := []struct {
		err  error
		want aws.Ternary
	}{
		{cancelled("None", "ThrottlingError"), aws.TrueTernary},
		{cancelled("TransactionConflict", "None"), aws.TrueTernary},
		{cancelled("ProvisionedThroughputExceeded"), aws.TrueTernary},
		{cancelled("ThrottlingError", "ConditionalCheckFailed"), aws.FalseTernary},
		{cancelled("ValidationError"), aws.FalseTernary},
		{cancelled("None", "None"), aws.FalseTernary},
		{cancelled(), aws.UnknownTernary},
		{errors.New("something else"), aws.UnknownTernary},
	}
	for _, c := range cases {
		if got := retryableCancellation(c.err); got != c.want {
			t.Errorf("%v: %v, want %v", c.err, got, c.want)
		}
	}
}

func TestRetryerTriesFourteenTimesWithCappedJitteredBackoff(t *testing.T) {
	r := newRetryer(0)
	if r.MaxAttempts() != DefaultMaxAttempts {
		t.Fatalf("max attempts %d", r.MaxAttempts())
	}
	throttled := &types.ProvisionedThroughputExceededException{}
	if !r.IsErrorRetryable(throttled) || !r.IsErrorRetryable(fmt.Errorf("x: %w", &types.TransactionCanceledException{
		CancellationReasons: []types.CancellationReason{{Code: aws.String("ThrottlingError")}},
	})) {
		t.Fatal("throttling is not retried")
	}
	for attempt := 1; attempt <= 20; attempt++ {
		ceiling := min(2*time.Second, 25*time.Millisecond<<min(attempt-1, 16)) + time.Millisecond
		for range 50 {
			d, err := r.RetryDelay(attempt, throttled)
			if err != nil || d <= 0 || d > ceiling {
				t.Fatalf("attempt %d: delay %v (err %v), want in (0, %v]", attempt, d, err, ceiling)
			}
		}
	}
	// No retry quota: a thousand failed tries in a row still get their token.
	for range 1000 {
		if _, err := r.GetRetryToken(t.Context(), throttled); err != nil {
			t.Fatalf("retry quota: %v", err)
		}
	}
}

func TestBackoffIsBoundedFullJitter(t *testing.T) {
	for attempt := range 40 {
		ceiling := min(2*time.Second, (25*time.Millisecond)<<min(attempt, 16))
		for range 50 {
			if d := Backoff(attempt); d <= 0 || d > ceiling+time.Millisecond {
				t.Fatalf("backoff(%d) = %v, want in (0, %v]", attempt, d, ceiling)
			}
		}
	}
}
