package repository

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ensureTTL enables Time to Live on the definition's attribute, so that DynamoDB deletes the
// change log's items once past the retention (reads leave them out from then on anyway: TTL only
// bounds the storage). A table whose TTL is on another attribute is left alone, and a failure is
// logged, not returned: the API works without it, the log then only grows.
func (r *Repo) ensureTTL(ctx context.Context) {
	attr := Definition().TTLAttribute
	out, err := r.DB.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(r.Table())})
	if err == nil && out.TimeToLiveDescription != nil && out.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		if got := aws.ToString(out.TimeToLiveDescription.AttributeName); got != attr {
			r.Log.Warn("the table's Time to Live is on another attribute; the change log's items will not expire", "attribute", got, "want", attr)
		}
		return
	}
	_, err = r.DB.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(r.Table()),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attr), Enabled: aws.Bool(true)}})
	if err != nil {
		r.Log.Warn("Time to Live could not be enabled; the change log's items will not expire", "attribute", attr, "error", err.Error())
		return
	}
	r.Log.Info("enabled Time to Live for the change log", "attribute", attr)
}
