package maintenance

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// sampleItems is the sample dataset: the organizations with their users and tickets
// (SaasSampleItems), then the other domains' samples (withDomainSamples).
func sampleItems(shards int) ([]map[string]types.AttributeValue, error) {
	items, err := saas.SaasSampleItems()
	if err != nil {
		return nil, err
	}
	return withDomainSamples(items, shards)
}

// withDomainSamples is items with the other domains' samples after them (commerce, HR, the
// catalog, and the account reps' history, which names the commerce sample's customers), every
// parent's counters summed from them and the account reps assigned.
func withDomainSamples(items []map[string]types.AttributeValue, shards int) ([]map[string]types.AttributeValue, error) {
	for _, sample := range []func() ([]map[string]types.AttributeValue, error){
		func() ([]map[string]types.AttributeValue, error) { return commerce.CommerceSampleItems(shards) },
		hr.HrSampleItems,
		catalog.CatalogSampleItems,
	} {
		more, err := sample()
		if err != nil {
			return nil, err
		}
		items = append(items, more...)
	}
	history, err := commerce.RepHistorySampleItems(items, shards)
	if err != nil {
		return nil, err
	}
	items = append(items, history...)
	repository.CountSample(items)
	return commerce.AssignSampleReps(items, shards)
}

// SeedVersion names the sample dataset; bump it when the dataset changes.
const SeedVersion = "2026-11-saas-v2+commerce-v3+hr-v3+catalog-v1+reps-v1"

// SeedStats says what Seed did.
type SeedStats struct {
	AlreadyLoaded bool
	Items         int
}

// Seed loads the sample dataset for the playground. It is idempotent: every sample item has a
// fixed key (ids are derived from fixed times and labels), so a rerun rewrites the same items, and
// a marker item written last makes later runs return at once.
func (r *Maintenance) Seed(ctx context.Context) (SeedStats, error) {
	marker := repository.SeedMarkerKey(SeedVersion)
	out, err := r.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.Table()), Key: marker.Attributes(), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return SeedStats{}, apperr.Classify("seed marker", err)
	}
	if out.Item != nil {
		return SeedStats{AlreadyLoaded: true}, nil
	}
	items, err := sampleItems(r.Shards)
	if err != nil {
		return SeedStats{}, err
	}
	if err := r.BatchWrite(ctx, items); err != nil {
		return SeedStats{}, err
	}
	m := marker.Attributes()
	m[repository.AttrType] = repository.StringValue(repository.TypeSeedMarker)
	if _, err := r.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.Table()), Item: m}); err != nil {
		return SeedStats{}, apperr.Classify("seed marker", err)
	}
	return SeedStats{Items: len(items)}, nil
}
