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

// tableIndexes declares every global secondary index of the design, once. All are overloaded:
// the meaning of their key attributes depends on the item type (see each domain's model.go). They project all
// attributes so that an entity read through an index needs no second read.
var tableIndexes = []struct{ name, pk, sk string }{
	{GSI1, AttrGSI1PK, attrGSI1SK},
	{GSI2, attrGSI2PK, attrGSI2SK},
	{GSI3, AttrGSI3PK, AttrGSI3SK},
}

// TableDefinition is the table's shape as data: its key attributes and its indexes. -create-table
// builds its CreateTable request from it, and cmd/tablegen renders the CloudFormation template and
// the NoSQL Workbench model under deploy/ from it, so that the three cannot disagree.
type TableDefinition struct {
	// PartitionKey and SortKey are the table's key attributes (strings).
	PartitionKey, SortKey string
	// TypeAttribute names the attribute every item carries its entity type in.
	TypeAttribute string
	// Indexes are the global secondary indexes, each keyed by two string attributes and projecting
	// all attributes.
	Indexes []IndexDefinition
	// BillingMode is DynamoDB's name of the billing mode (on-demand).
	BillingMode string
	// StreamViewType is DynamoDB's name of what the table's stream records carry of each changed
	// item: NEW_AND_OLD_IMAGES, the item as it was before and after the write, which is what a
	// subscription needs to tell what changed (a ticket's previous status) without a read.
	StreamViewType string
	// TTLAttribute is the attribute DynamoDB's Time to Live deletes items by (epoch seconds):
	// the change log's items expire CHANGE_RETENTION after they were logged.
	TTLAttribute string
}

// IndexDefinition is one global secondary index of a TableDefinition.
type IndexDefinition struct {
	Name, PartitionKey, SortKey string
	// Projection is DynamoDB's projection type name ("ALL").
	Projection string
}

// Definition returns the table's definition (a fresh copy: callers may not change the design).
func Definition() TableDefinition {
	d := TableDefinition{
		PartitionKey:   AttrPK,
		SortKey:        AttrSK,
		TypeAttribute:  AttrType,
		BillingMode:    string(types.BillingModePayPerRequest),
		StreamViewType: string(types.StreamViewTypeNewAndOldImages),
		TTLAttribute:   AttrLogExpires,
	}
	for _, ix := range tableIndexes {
		d.Indexes = append(d.Indexes, IndexDefinition{Name: ix.name, PartitionKey: ix.pk, SortKey: ix.sk, Projection: string(types.ProjectionTypeAll)})
	}
	return d
}

// KeyAttributes lists every attribute that is part of a key of the table or an index, table keys
// first: these are the attribute definitions CreateTable needs (all strings).
func (d TableDefinition) KeyAttributes() []string {
	attrs := []string{d.PartitionKey, d.SortKey}
	for _, ix := range d.Indexes {
		attrs = append(attrs, ix.PartitionKey, ix.SortKey)
	}
	return attrs
}

func CreateTableInput(table string) *dynamodb.CreateTableInput {
	def := Definition()
	var attrs []types.AttributeDefinition
	for _, a := range def.KeyAttributes() {
		attrs = append(attrs, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
	}
	var gsis []types.GlobalSecondaryIndex
	for _, ix := range def.Indexes {
		gsis = append(gsis, types.GlobalSecondaryIndex{
			IndexName: aws.String(ix.Name),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(ix.PartitionKey), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(ix.SortKey), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionType(ix.Projection)},
		})
	}
	return &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: attrs,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(def.PartitionKey), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(def.SortKey), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: gsis,
		BillingMode:            types.BillingMode(def.BillingMode),
		StreamSpecification:    StreamSpecification(def),
	}
}

// CreateTable creates the table with all its indexes and its stream if the table does not exist,
// and waits until it is active. An existing table must have every index of the design; one
// without a stream gets it (see ensureStream), and is otherwise left as it is.
func (r *Repo) CreateTable(ctx context.Context, maxWait time.Duration) error {
	_, err := r.DB.CreateTable(ctx, CreateTableInput(r.Table()))
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("create table %s: %w", r.Table(), err)
	}
	if err := r.waitActive(ctx, maxWait); err != nil {
		return err
	}
	if err := r.ensureStream(ctx, maxWait); err != nil {
		return err
	}
	r.ensureTTL(ctx)
	return r.Ready(ctx)
}

// waitActive waits until the table is active (created, or done with an update).
func (r *Repo) waitActive(ctx context.Context, maxWait time.Duration) error {
	waiter := dynamodb.NewTableExistsWaiter(r.DB, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
		o.MaxDelay = 2 * time.Second
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(r.Table())}, maxWait); err != nil {
		return fmt.Errorf("wait for table %s: %w", r.Table(), err)
	}
	return nil
}

// DeleteTable deletes the table (tests use it to clean up).
func (r *Repo) DeleteTable(ctx context.Context) error {
	_, err := r.DB.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(r.Table())})
	return err
}

// Ready reports whether the table is usable: it exists, is active, and has every index the
// design needs, each active. It is the readiness probe. A missing stream does not make the table
// unready: queries and mutations do not need it, and only subscriptions are unavailable (see
// StreamARN).
func (r *Repo) Ready(ctx context.Context) error {
	out, err := r.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(r.Table())})
	if err != nil {
		return apperr.Classify("describe table", err)
	}
	t := out.Table
	if t.TableStatus != types.TableStatusActive {
		return fmt.Errorf("table %s is %s", r.Table(), t.TableStatus)
	}
	have := map[string]types.IndexStatus{}
	for _, g := range t.GlobalSecondaryIndexes {
		have[aws.ToString(g.IndexName)] = g.IndexStatus
	}
	for _, ix := range tableIndexes {
		st, ok := have[ix.name]
		if !ok {
			return fmt.Errorf("table %s lacks index %s: recreate it with -create-table", r.Table(), ix.name)
		}
		if st != types.IndexStatusActive {
			return fmt.Errorf("index %s of table %s is %s", ix.name, r.Table(), st)
		}
	}
	return nil
}
