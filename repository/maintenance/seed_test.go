package maintenance

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"singletable/repository"
	"singletable/repository/commerce"
)

func TestSeedIsIdempotent(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	first, err := r.Seed(ctx)
	if err != nil || first.AlreadyLoaded || first.Items == 0 {
		t.Fatalf("first seed: %+v %v", first, err)
	}
	again, err := r.Seed(ctx)
	if err != nil || !again.AlreadyLoaded {
		t.Fatalf("second seed: %+v %v", again, err)
	}
	orgs, err := r.ListOrganizations(ctx, repository.PageArgs{First: 100})
	if err != nil || len(orgs.Items) != 3 {
		t.Fatalf("organizations after two seeds: %d %v", len(orgs.Items), err)
	}
	// A crash before the marker: the rerun rewrites the same items, nothing is duplicated.
	if _, err := r.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(r.Table()), Key: repository.SeedMarkerKey(SeedVersion).Attributes()}); err != nil {
		t.Fatal(err)
	}
	if st, err := r.Seed(ctx); err != nil || st.AlreadyLoaded {
		t.Fatalf("reseed: %+v %v", st, err)
	}
	if orgs, _ := r.ListOrganizations(ctx, repository.PageArgs{First: 100}); len(orgs.Items) != 3 {
		t.Fatalf("organizations after a reseed: %d", len(orgs.Items))
	}
	if err := r.CreateTable(ctx, time.Minute); err != nil {
		t.Fatalf("CreateTable on an existing table: %v", err)
	}
}

// The sample account reps have sales over several months, and not the same rep leads every
// month, so topAccountReps ranks them differently with the range it is asked for.
func TestSampleRepSalesSpanMonths(t *testing.T) {
	items, err := sampleItems(3)
	if err != nil {
		t.Fatal(err)
	}
	months := map[string]map[string]int64{} // month → rep → cents
	for _, it := range items {
		if repository.StringAttr(it, repository.AttrType) != commerce.TypeRepSales {
			continue
		}
		e, err := repository.DecodeEntity(it)
		if err != nil {
			t.Fatal(err)
		}
		s := e.(*commerce.RepSales)
		if months[s.Month] == nil {
			months[s.Month] = map[string]int64{}
		}
		months[s.Month][s.RepID] += s.TotalCents
	}
	leaders := map[string]bool{}
	for _, reps := range months {
		var best string
		for rep, cents := range reps {
			if best == "" || cents > reps[best] {
				best = rep
			}
		}
		leaders[best] = true
	}
	if len(months) < 3 || len(leaders) < 2 {
		t.Fatalf("rep sales in %d months with %d leaders, want at least 3 months and 2 leaders: %v", len(months), len(leaders), months)
	}
}
