package maintenance

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// The sweeper: the background run that finishes the removals left to it (the engine's sweep
// records, each finished by the function its domain declared, repository.DeclareSweep).

// Sweep finishes every sweep record of the table and returns how many it finished. A record whose
// sweep fails stays for the next run; the first error is returned after the others were tried.
func (r *Maintenance) Sweep(ctx context.Context) (int, error) {
	raw, err := r.SweepRecords(ctx)
	if err != nil {
		return 0, err
	}
	done := 0
	var errs []error
	for _, item := range raw {
		var rec repository.SweepRecord
		if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
			errs = append(errs, apperr.Internal("decode sweep record", err))
			continue
		}
		if err := r.SweepOne(ctx, &rec); err != nil {
			errs = append(errs, err)
			continue
		}
		done++
	}
	return done, errors.Join(errs...)
}

// SweepRecords reads the SWEEP partition: every removal left to finish.
func (r *Maintenance) SweepRecords(ctx context.Context) ([]map[string]types.AttributeValue, error) {
	return r.QueryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(r.Table()),
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": repository.StringValue(repository.SweepPK)},
		ConsistentRead:            aws.Bool(true),
	})
}

// StartSweeper runs the sweeper in the background until ctx ends: at once when the table holds
// unfinished removals (one Query, made before StartSweeper returns, so that a server counts it
// before it serves), again whenever a delete leaves something to sweep, and every interval.
// Failures are logged and retried on the next run.
func (r *Maintenance) StartSweeper(ctx context.Context, interval time.Duration) {
	if pending, err := r.SweepRecords(ctx); err != nil || len(pending) > 0 {
		r.KickSweeper()
	}
	go r.runSweeper(ctx, interval)
}

// runSweeper is StartSweeper's loop.
func (r *Maintenance) runSweeper(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.SweepKicks():
		case <-t.C:
		}
		if n, err := r.Sweep(ctx); err != nil && ctx.Err() == nil {
			r.Log.Warn("sweep", "finished", n, "error", err)
		} else if n > 0 {
			r.Log.Info("sweep", "finished", n)
		}
	}
}
