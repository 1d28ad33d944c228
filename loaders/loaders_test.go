package loaders

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/saas"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
)

func createOrgs(t *testing.T, repo *store.Store, n int) []*saas.Organization {
	t.Helper()
	var orgs []*saas.Organization
	for i := range n {
		o, err := repo.CreateOrganization(context.Background(), fmt.Sprintf("org %d", i))
		if err != nil {
			t.Fatal(err)
		}
		orgs = append(orgs, o)
	}
	return orgs
}

// The batch function answers one result per key, in key order, whatever order BatchGetItem used,
// and a missing key is an error for that key only.
func TestBatchGetAnswersInKeyOrder(t *testing.T) {
	repo := storetest.New(t)
	orgs := createOrgs(t, repo, 30)
	l := New(repo, Options{})
	missing := repository.Key{PK: "ORG#01J00000000000000000000000", SK: "METADATA#01J00000000000000000000000"}
	var keys []repository.Key
	for i := len(orgs) - 1; i >= 0; i-- {
		keys = append(keys, orgs[i].Key())
		if i == 10 {
			keys = append(keys, missing)
		}
	}
	results := l.batchGet(context.Background(), keys)
	if len(results) != len(keys) {
		t.Fatalf("%d results for %d keys", len(results), len(keys))
	}
	for i, k := range keys {
		r := results[i]
		if k == missing {
			if r.Error != errMissing {
				t.Fatalf("missing key: %+v", r)
			}
			continue
		}
		if r.Error != nil || r.Data.Key() != k {
			t.Fatalf("result %d is for %v, want %v (err %v)", i, r.Data, k, r.Error)
		}
	}
}

func TestLookupsAtOneLevelShareOneBatchGetItem(t *testing.T) {
	repo := storetest.New(t)
	orgs := createOrgs(t, repo, 40)
	ctx, m := repository.WithMeter(context.Background())
	// A window long enough for 80 goroutines to start even under the race detector: this test is
	// about what one batch holds, not about timing (that is BenchmarkLoaderWait's job).
	l := New(repo, Options{Wait: 100 * time.Millisecond})
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(orgs))
	for _, o := range append(orgs, orgs...) { // every organization asked for twice
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := lookupOrg(ctx, l, o.ID)
			if err == nil && got.Name != o.Name {
				err = fmt.Errorf("got %q, want %q", got.Name, o.Name)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if c := m.Usage().Calls["BatchGetItem"]; c != 1 {
		t.Fatalf("BatchGetItem calls = %d, want 1 for 40 unique keys", c)
	}
	// Asked again in the same request: cached, no call.
	if _, err := lookupOrg(ctx, l, orgs[3].ID); err != nil || m.Usage().TotalCalls != 1 {
		t.Fatalf("second lookup: err %v, calls %v", err, m.Usage().Calls)
	}
	_, err := lookupOrg(ctx, l, "01J00000000000000000000000")
	if apperr.CodeOf(err) != apperr.CodeNotFound || err.Error() != "NOT_FOUND: organization not found" {
		t.Fatalf("missing organization: %v", err)
	}
}

// Prefetched keys form one batch, however slowly the goroutines that then ask for them start.
// (The window is wider than the default here only so that the race detector on a loaded machine
// cannot stretch the 40 Prefetch calls themselves past it.)
func TestPrefetchedKeysShareOneBatch(t *testing.T) {
	repo := storetest.New(t)
	orgs := createOrgs(t, repo, 40)
	ctx, m := repository.WithMeter(context.Background())
	l := New(repo, Options{Wait: 10 * time.Millisecond})
	var keys []repository.Key
	for _, o := range orgs {
		keys = append(keys, o.Key())
	}
	l.Prefetch(ctx, keys...)
	var wg sync.WaitGroup
	for _, o := range orgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(30 * time.Millisecond) // far beyond the window
			if _, err := lookupOrg(ctx, l, o.ID); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if c := m.Usage().Calls["BatchGetItem"]; c != 1 {
		t.Fatalf("BatchGetItem calls = %d, want 1", c)
	}
}

func TestListsPrimeTheKeyLoader(t *testing.T) {
	repo := storetest.New(t)
	orgs := createOrgs(t, repo, 3)
	ctx, m := repository.WithMeter(context.Background())
	l := New(repo, Options{})
	if _, err := l.Organizations(ctx, repository.PageArgs{First: 10}, nil); err != nil {
		t.Fatal(err)
	}
	for _, o := range orgs {
		if _, err := lookupOrg(ctx, l, o.ID); err != nil {
			t.Fatal(err)
		}
	}
	if u := m.Usage(); u.TotalCalls != 1 || u.Calls["Query"] != 1 {
		t.Fatalf("calls %v: lookups of listed organizations must cost nothing", u.Calls)
	}
	// The same list asked twice in one request runs once.
	if _, err := l.Organizations(ctx, repository.PageArgs{First: 10}, nil); err != nil || m.Usage().TotalCalls != 1 {
		t.Fatalf("repeated list: err %v, calls %v", err, m.Usage().Calls)
	}
	// Another request has its own loaders: nothing is shared.
	ctx2, m2 := repository.WithMeter(context.Background())
	if _, err := lookupOrg(ctx2, New(repo, Options{}), orgs[0].ID); err != nil || m2.Usage().Calls["BatchGetItem"] != 1 {
		t.Fatalf("fresh request: err %v, calls %v", err, m2.Usage().Calls)
	}
}

// FetchNow sends its keys at once, one batch for all of them, and resolvers that ask for the
// same keys meanwhile or later share that fetch; a missing key is NOT_FOUND for its asker only.
func TestFetchNowIsOneBatchSharedWithLaterLookups(t *testing.T) {
	repo := storetest.New(t)
	orgs := createOrgs(t, repo, 30)
	ctx, m := repository.WithMeter(context.Background())
	l := New(repo, Options{Wait: time.Hour}) // a lookup that waited for the window would hang
	var keys []repository.Key
	for _, o := range orgs {
		keys = append(keys, o.Key())
	}
	missing, err := saas.OrganizationKey("01J00000000000000000000000")
	if err != nil {
		t.Fatal(err)
	}
	l.FetchNow(ctx, append(keys, missing, keys[0])...)
	var wg sync.WaitGroup
	for _, o := range orgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := lookupOrg(ctx, l, o.ID)
			if err != nil || got.Name != o.Name {
				t.Errorf("organization %s: %+v, %v", o.ID, got, err)
			}
		}()
	}
	wg.Wait()
	if _, err := lookupOrg(ctx, l, "01J00000000000000000000000"); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("missing organization: %v", err)
	}
	if c := m.Usage().Calls["BatchGetItem"]; c != 1 || m.Usage().TotalCalls != 1 {
		t.Fatalf("calls %v, want exactly one BatchGetItem", m.Usage().Calls)
	}
}

// fetchNow hands every caller a thunk of its own, also when the key's cache entry is replaced at
// the same moment (by Remember: a mutation's write).
func TestFetchNowThunksSurviveConcurrentClears(t *testing.T) {
	repo := storetest.New(t)
	orgs := createOrgs(t, repo, 20)
	l := New(repo, Options{})
	var keys []repository.Key
	for _, o := range orgs {
		keys = append(keys, o.Key())
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					for _, o := range orgs {
						l.entities.set(o.Key(), o)
					}
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	for range 30 {
		for i, th := range l.fetchNow(context.Background(), keys) {
			if th == nil {
				t.Fatalf("key %d: nil thunk", i)
			}
			if e, err := th(); err != nil || e.Key() != keys[i] {
				t.Fatalf("key %d: %v, %v", i, e, err)
			}
		}
	}
}

// lookupOrg looks an organization up by id through l (AP1).
func lookupOrg(ctx context.Context, l *Loaders, id string) (*saas.Organization, error) {
	k, err := saas.OrganizationKey(id)
	if err != nil {
		return nil, err
	}
	e, err := l.Lookup(ctx, k, "organization")
	if err != nil {
		return nil, err
	}
	return e.(*saas.Organization), nil
}
