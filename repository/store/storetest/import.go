package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/oklog/ulid/v2"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/saas"
)

// ImportTickets writes n open tickets of org reported by reporter into table as another writer
// would: a bulk import with an SDK client of its own, BatchWriteItem 25 items at a time (what
// reaches the table's stream is a burst of hundreds of records), with neither versions nor
// counts. It returns the tickets in the order written. For tests and the benchmark: cfg names
// DynamoDB Local's endpoint, the table and its database (LocalDatabase; empty for the process's
// own credentials).
func ImportTickets(ctx context.Context, cfg repository.Config, org, reporter string, n int) ([]*saas.Ticket, error) {
	table := cfg.Table
	opts := []func(*config.LoadOptions) error{config.WithRegion("us-east-1")}
	if cfg.LocalDatabase != "" {
		opts = append(opts, config.WithCredentialsProvider(repository.LocalCredentials(cfg.LocalDatabase)))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, err
	}
	db := dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(cfg.Endpoint) })
	tickets := make([]*saas.Ticket, n)
	for start := 0; start < n; start += 25 {
		now := time.Now().UTC() // each batch's tickets are created when it is written
		var reqs []types.WriteRequest
		for i := start; i < min(start+25, n); i++ {
			t := &saas.Ticket{ID: ulid.Make().String(), OrgID: org, ReporterID: reporter, Title: fmt.Sprintf("Imported %d", i),
				Body: "imported", Status: saas.TicketOpen, CreatedAt: now, UpdatedAt: now, Version: 1}
			item, err := saas.EncodeTicket(t)
			if err != nil {
				return nil, err
			}
			tickets[i] = t
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
		}
		for len(reqs) > 0 {
			out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
			if err != nil {
				return nil, err
			}
			reqs = out.UnprocessedItems[table]
		}
	}
	return tickets, nil
}

// Import is ImportTickets into the table of repo, a Repo of NewRepo (in its table's own
// database), failing t on an error.
func Import(t testing.TB, repo *repository.Repo, org, reporter string, n int) []*saas.Ticket {
	t.Helper()
	tickets, err := ImportTickets(context.Background(), repotest.Config(t, repo.Table()), org, reporter, n)
	if err != nil {
		t.Fatalf("import %d tickets: %v", n, err)
	}
	return tickets
}
