package repository_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"singletable/repository"
	"singletable/repository/store/storetest"
)

// The table -create-table creates is the exported definition, which deploy/ is generated from.
func TestCreatedTableIsTheDefinition(t *testing.T) {
	repo := storetest.New(t)
	got, err := repository.DescribedDefinition(context.Background(), repo.Repo)
	if err != nil {
		t.Fatal(err)
	}
	want := repository.Definition()
	slices.SortFunc(got.Indexes, func(a, b repository.IndexDefinition) int { return strings.Compare(a.Name, b.Name) })
	if got.BillingMode == "" { // DynamoDB Local may leave the billing summary out
		got.BillingMode = want.BillingMode
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("created table %+v\nwant %+v", got, want)
	}
}

func TestDefinitionIsACopy(t *testing.T) {
	d := repository.Definition()
	d.Indexes[0].Name = "changed"
	if repository.Definition().Indexes[0].Name == "changed" {
		t.Fatal("callers can change the design through Definition")
	}
}
