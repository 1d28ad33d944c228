package store_test

import (
	"context"
	"testing"

	"singletable/repository"
	"singletable/repository/hr"
	"singletable/repository/repotest"
	"singletable/repository/store"
)

// What another domain adds to a sweep (the employee's customers losing their account rep) is
// declared once, whatever number of stores is made over one table: the sweep of an employee reads
// its accounts with one Query, not one per store.
func TestASweepStepRunsOnceHoweverManyStores(t *testing.T) {
	r := repotest.NewRepo(t)
	for range 3 {
		store.Of(r)
	}
	ctx, m := repository.WithMeter(context.Background())
	rec := &repository.SweepRecord{Kind: hr.SweepEmployee, Employee: "01J00000000000000000000001"}
	if err := r.SweepSteps(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if calls := len(m.Records()); calls != 1 {
		t.Fatalf("the employee's sweep steps made %d calls, want 1 (the Query of its accounts)", calls)
	}
}
