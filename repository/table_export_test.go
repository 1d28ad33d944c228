package repository

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DescribedDefinition reads r's table back from DynamoDB (DescribeTable, DescribeTimeToLive) as a TableDefinition,
// for the external tests.
func DescribedDefinition(ctx context.Context, r *Repo) (TableDefinition, error) {
	out, err := r.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(r.Table())})
	if err != nil {
		return TableDefinition{}, err
	}
	t := out.Table
	keys := func(ks []types.KeySchemaElement) (pk, sk string) {
		for _, k := range ks {
			if k.KeyType == types.KeyTypeHash {
				pk = aws.ToString(k.AttributeName)
			} else {
				sk = aws.ToString(k.AttributeName)
			}
		}
		return pk, sk
	}
	d := TableDefinition{TypeAttribute: AttrType}
	d.PartitionKey, d.SortKey = keys(t.KeySchema)
	if t.BillingModeSummary != nil {
		d.BillingMode = string(t.BillingModeSummary.BillingMode)
	}
	if t.StreamSpecification != nil && aws.ToBool(t.StreamSpecification.StreamEnabled) {
		d.StreamViewType = string(t.StreamSpecification.StreamViewType)
	}
	for _, g := range t.GlobalSecondaryIndexes {
		ix := IndexDefinition{Name: aws.ToString(g.IndexName)}
		ix.PartitionKey, ix.SortKey = keys(g.KeySchema)
		if g.Projection != nil {
			ix.Projection = string(g.Projection.ProjectionType)
		}
		d.Indexes = append(d.Indexes, ix)
	}
	ttl, err := r.DB.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(r.Table())})
	if err != nil {
		return TableDefinition{}, err
	}
	if desc := ttl.TimeToLiveDescription; desc != nil && desc.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		d.TTLAttribute = aws.ToString(desc.AttributeName)
	}
	return d, nil
}
