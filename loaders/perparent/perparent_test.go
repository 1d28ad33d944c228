package perparent_test

import (
	"context"
	"fmt"
	"testing"

	"singletable/apperr"
	"singletable/loaders"
	"singletable/loaders/perparent"
	"singletable/repository"
	"singletable/repository/saas"
	"singletable/repository/store/storetest"
)

// The baseline makes one GetItem per lookup, repeated lookups included, and reads nothing ahead.
func TestOneGetItemPerLookup(t *testing.T) {
	repo := storetest.New(t)
	var orgs []*saas.Organization
	for i := range 3 {
		o, err := repo.CreateOrganization(context.Background(), fmt.Sprintf("org %d", i))
		if err != nil {
			t.Fatal(err)
		}
		orgs = append(orgs, o)
	}
	ctx, m := repository.WithMeter(context.Background())
	l := loaders.New(repo, perparent.Options())
	org := &saas.Organization{ID: "01J00000000000000000000001"}
	if lvl := (perparent.Planner{}).Level(nil, nil, "Organization", nil); lvl.Type != "Organization" || lvl.Lists() != nil || lvl.Lookups(0, []repository.Entity{org}) != nil {
		t.Fatal("the per-parent baseline must not read anything ahead")
	}
	if _, err := l.Organizations(ctx, repository.PageArgs{First: 10}, nil); err != nil {
		t.Fatal(err)
	}
	for _, o := range append(orgs, orgs[0]) {
		if _, err := l.Lookup(ctx, o.Key(), "organization"); err != nil {
			t.Fatal(err)
		}
	}
	missing := &saas.Organization{ID: "01J00000000000000000000000"}
	if _, err := l.Lookup(ctx, missing.Key(), "organization"); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("missing: %v", err)
	}
	if u := m.Usage(); u.Calls["GetItem"] != 5 || u.Calls["BatchGetItem"] != 0 {
		t.Fatalf("calls %v, want 5 GetItem", u.Calls)
	}
}
