// Package repotest gives tests a real table on DynamoDB Local: every call to NewRepo creates a
// fresh table with all the design's indexes, and deletes it when the test ends. Tests that touch
// data run against DynamoDB Local, never against a fake of the repository.
//
// `make test` starts DynamoDB Local and sets AWS_ENDPOINT_URL_DYNAMODB; a test run without it
// fails with a message saying so.
package repotest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"singletable/repository"
)

// CursorSecret is the cursor secret of test repos.
const CursorSecret = "test-cursor-secret-0123456789abcdef"

var tableSeq atomic.Int64

// Endpoint returns the DynamoDB Local endpoint, or fails the test.
func Endpoint(t testing.TB) string {
	t.Helper()
	ep := os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")
	if ep == "" {
		t.Fatal("AWS_ENDPOINT_URL_DYNAMODB is not set: run the tests with `make test`, which starts DynamoDB Local")
	}
	if os.Getenv("AWS_ACCESS_KEY_ID") == "" {
		t.Fatal("AWS_ACCESS_KEY_ID is not set: `make test` sets dummy credentials for DynamoDB Local")
	}
	return ep
}

// NewRepo returns a repository on a new, empty table of its own, in a database of its own (see
// Config).
func NewRepo(t testing.TB, modify ...func(*repository.Config)) *repository.Repo {
	t.Helper()
	cfg := Config(t, TableName(t))
	for _, m := range modify {
		m(&cfg)
	}
	ctx := context.Background()
	repo, err := repository.New(ctx, cfg)
	if err != nil {
		t.Fatalf("repository: %v", err)
	}
	if err := repo.CreateTable(ctx, time.Minute); err != nil {
		t.Fatalf("create table: %v", err)
	}
	t.Cleanup(func() {
		if err := repo.DeleteTable(context.Background()); err != nil {
			t.Logf("delete table %s: %v", cfg.Table, err)
		}
	})
	return repo
}

// Config is the configuration of a test repository on table: a second Repo on a table NewRepo
// created (with other settings, or a latency) starts from it. The table's name is also the name
// of its database in DynamoDB Local: every test table lives alone in an in-memory database with
// its own thread, so a test never waits behind the stream records other tests' writes left
// behind (DynamoDB Local keeps them after their table is gone, and every stream write scans
// them), and tests running in parallel do not queue on one thread.
func Config(t testing.TB, table string) repository.Config {
	t.Helper()
	return repository.Config{
		Table:         table,
		Region:        "us-east-1",
		Endpoint:      Endpoint(t),
		CursorSecret:  []byte(CursorSecret),
		LocalDatabase: table,
	}
}

// SharedDatabase is an option of NewRepo that puts the table in the database of the process's own
// credentials (AWS_ACCESS_KEY_ID), where a server configured from the environment, as cmd/server
// and cmd/lambda are, finds it.
func SharedDatabase(c *repository.Config) { c.LocalDatabase = "" }

// TableName is a table name unique to this test and process.
func TableName(t testing.TB) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, t.Name())
	if len(name) > 100 {
		name = name[:100]
	}
	return fmt.Sprintf("t_%s_%d_%d", name, os.Getpid(), tableSeq.Add(1))
}
