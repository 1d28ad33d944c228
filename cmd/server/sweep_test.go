package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/store"
)

// An organization removed while no server ran (its sweep record left in the table, as when a
// server stops mid-sweep) is swept by the next server to start: its users and tickets go.
func TestServerStartFinishesAnUnfinishedSweep(t *testing.T) {
	getenv := env(t, nil)
	ctx := context.Background()
	repo, err := store.New(ctx, repository.Config{Table: getenv("DYNAMODB_TABLE"), Region: "us-east-1", Endpoint: getenv("AWS_ENDPOINT_URL_DYNAMODB")})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.CreateTable(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	org, err := repo.CreateOrganization(ctx, "Left behind")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		u, err := repo.CreateUser(ctx, org.ID, "U", fmt.Sprintf("u%d@left.example", i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := repo.CreateTicket(ctx, org.ID, u.ID, "t", "b"); err != nil {
			t.Fatal(err)
		}
	}
	if err := repo.DeleteOrganization(ctx, org.ID); err != nil { // no sweeper runs on this Repo
		t.Fatal(err)
	}
	users := func() int {
		p, err := repo.UsersOfOrganization(ctx, org.ID, repository.PageArgs{First: 10})
		if err != nil {
			t.Fatal(err)
		}
		return len(p.Items)
	}
	if users() != 3 {
		t.Fatal("the users went before any sweep: the test proves nothing")
	}
	start(t, nil, getenv)
	repotest.WaitFor(t, "the started server to sweep the organization", func() bool { return users() == 0 })
}
