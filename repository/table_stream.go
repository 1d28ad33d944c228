package repository

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// ErrNoStream is in the chain of errors that say the table has no stream subscriptions can
// read: none, a disabled one, or one whose records lack the images (another view type). Queries
// and mutations work without it; subscriptions answer UNAVAILABLE.
var ErrNoStream = apperr.New(apperr.CodeUnavailable, "subscriptions are unavailable: the table has no stream")

func StreamSpecification(def TableDefinition) *types.StreamSpecification {
	return &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(def.StreamViewType)}
}

// StreamARN returns the ARN of the table's stream, or an error with ErrNoStream in its chain
// when the table has no stream with the view type of the definition (or no table at all). Other
// errors are DescribeTable failing (classified: UNAVAILABLE when DynamoDB cannot be reached).
func (r *Repo) StreamARN(ctx context.Context) (string, error) {
	out, err := r.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(r.Table())})
	var missing *types.ResourceNotFoundException
	if errors.As(err, &missing) {
		return "", fmt.Errorf("table %s does not exist: %w", r.Table(), ErrNoStream)
	}
	if err != nil {
		return "", apperr.Classify("describe table", err)
	}
	return r.streamOf(out.Table)
}

// streamOf returns the ARN of a described table's usable stream.
func (r *Repo) streamOf(t *types.TableDescription) (string, error) {
	spec, arn := t.StreamSpecification, aws.ToString(t.LatestStreamArn)
	if spec == nil || !aws.ToBool(spec.StreamEnabled) || arn == "" {
		return "", fmt.Errorf("table %s: %w", r.Table(), ErrNoStream)
	}
	if want := Definition().StreamViewType; string(spec.StreamViewType) != want {
		return "", fmt.Errorf("table %s has a stream of view type %s, not %s: %w", r.Table(), spec.StreamViewType, want, ErrNoStream)
	}
	return arn, nil
}

// ensureStream enables the stream of a table that has none (a table created before the design
// had one), and waits until the table is active again. It logs what it did. A table with a
// stream of another view type is left alone with a warning: changing it means disabling the
// stream, which would cut off whatever else reads it (a Lambda trigger, say), so that is for
// its operator to decide.
func (r *Repo) ensureStream(ctx context.Context, maxWait time.Duration) error {
	out, err := r.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(r.Table())})
	if err != nil {
		return fmt.Errorf("describe table %s: %w", r.Table(), err)
	}
	spec := out.Table.StreamSpecification
	want := Definition().StreamViewType
	if spec != nil && aws.ToBool(spec.StreamEnabled) {
		if string(spec.StreamViewType) != want {
			r.Log.Warn("the table's stream has another view type: subscriptions answer UNAVAILABLE until it is "+want,
				"table", r.Table(), "viewType", string(spec.StreamViewType))
		}
		return nil
	}
	_, err = r.DB.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:           aws.String(r.Table()),
		StreamSpecification: StreamSpecification(Definition()),
	})
	if err != nil {
		return fmt.Errorf("enable the stream of table %s: %w", r.Table(), err)
	}
	if err := r.waitActive(ctx, maxWait); err != nil {
		return err
	}
	r.Log.Info("enabled the table's stream on the existing table", "table", r.Table(), "viewType", want)
	return nil
}
