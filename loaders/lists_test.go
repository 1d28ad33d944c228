package loaders

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
	"singletable/repository/store/storetest"
)

// countingFetcher answers each key with its own value and records the batches it was called with.
type countingFetcher struct {
	mu      sync.Mutex
	batches [][]int
	block   chan struct{} // when set, fetch waits for it
}

func (f *countingFetcher) fetch(_ context.Context, keys []int, _ bool, _ func(int, int, error)) ([]int, []error) {
	if f.block != nil {
		<-f.block
	}
	f.mu.Lock()
	f.batches = append(f.batches, slices.Clone(keys))
	f.mu.Unlock()
	vs := make([]int, len(keys))
	for i, k := range keys {
		vs[i] = k * 10
	}
	return vs, make([]error, len(keys))
}

func (f *countingFetcher) calls() [][]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.batches)
}

// A key asked for by many callers at once, and one started ahead and then asked for, is read once.
func TestListLoaderReadsEachKeyOnce(t *testing.T) {
	f := &countingFetcher{block: make(chan struct{})}
	ll := newListLoader[int, int](f, 0)
	ll.startAll(context.Background(), []int{7})
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := ll.load(context.Background(), 7); v != 70 || err != nil {
				t.Errorf("load(7) = %d, %v", v, err)
			}
		}()
	}
	close(f.block)
	wg.Wait()
	if got := f.calls(); len(got) != 1 || !slices.Equal(got[0], []int{7}) {
		t.Fatalf("fetches %v, want one of key 7", got)
	}
	ll.clear()
	if v, _ := ll.load(context.Background(), 7); v != 70 || len(f.calls()) != 2 {
		t.Fatalf("after clear: %d, fetches %v", v, f.calls())
	}
}

// With a window, the keys that arrive within it are read in one call of the fetcher.
func TestListLoaderGathersAWindowIntoOneFetch(t *testing.T) {
	f := &countingFetcher{}
	ll := newListLoader[int, int](f, time.Hour)
	for k := range 5 {
		ll.reserve(context.Background(), k) // as load does, before it waits
	}
	ll.reserve(context.Background(), 3) // already reserved
	ll.mu.Lock()
	b := ll.open
	ll.mu.Unlock()
	if b == nil || len(b.keys) != 5 {
		t.Fatalf("open batch %+v, want 5 keys", b)
	}
	ll.flush(b) // the window closes
	for k := range 5 {
		if v, err := ll.load(context.Background(), k); v != k*10 || err != nil {
			t.Fatalf("load(%d) = %d, %v", k, v, err)
		}
	}
	if got := f.calls(); len(got) != 1 || !slices.Equal(got[0], []int{0, 1, 2, 3, 4}) {
		t.Fatalf("fetches %v, want one of keys 0..4", got)
	}
}

type panickingFetcher struct{ n atomic.Int32 }

func (f *panickingFetcher) fetch(context.Context, []int, bool, func(int, int, error)) ([]int, []error) {
	f.n.Add(1)
	panic("boom")
}

// A panicking fetcher fails every caller waiting for its keys with an internal error that does
// not show the panic to clients, and blocks none of them.
func TestListLoaderTurnsAPanicIntoAnInternalError(t *testing.T) {
	for _, wait := range []time.Duration{0, time.Millisecond} {
		f := &panickingFetcher{}
		ll := newListLoader[int, int](f, wait)
		ll.startAll(context.Background(), []int{1})
		_, err := ll.load(context.Background(), 1)
		var coded *apperr.Error
		if !errors.As(err, &coded) || coded.Code != apperr.CodeInternal || coded.Message != "internal error" {
			t.Fatalf("wait %v: err %v", wait, err)
		}
		if f.n.Load() != 1 {
			t.Fatalf("wait %v: %d fetches", wait, f.n.Load())
		}
	}
	errs := each(3, "test", func(i int) error {
		if i == 1 {
			panic("kaboom")
		}
		return nil
	})
	if errs[0] != nil || errs[2] != nil || apperr.CodeOf(errs[1]) != apperr.CodeInternal {
		t.Fatalf("each: %v", errs)
	}
}

// Keys are normalised by construction: two spellings of one read are one key, different reads
// are different keys.
func TestListKeysAreNormalisedByConstruction(t *testing.T) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CEST", 2*3600)
	}
	sameAt := at.In(paris)
	open := saas.TicketStatus("OPEN")
	a := ticketsKeyOf("o", "u", saas.TicketFilter{Status: &open, CreatedAfter: &at}, repository.PageArgs{}, nil)
	b := ticketsKeyOf("o", "u", saas.TicketFilter{Status: &open, CreatedAfter: &sameAt}, repository.PageArgs{First: repository.DefaultPageSize}, nil)
	if a != b {
		t.Fatalf("one read, two keys: %+v, %+v", a, b)
	}
	if c := ticketsKeyOf("o", "u", saas.TicketFilter{CreatedAfter: &at}, repository.PageArgs{}, nil); c == a {
		t.Fatal("a status filter must be part of the key")
	}
	if f := a.filter(); *f.Status != open || !f.CreatedAfter.Equal(at) || f.CreatedBefore != nil {
		t.Fatalf("filter back from the key: %+v", f)
	}
	shipped := commerce.OrderStatus("SHIPPED")
	withItems, without := &stubLevel{}, &stubLevel{}
	if ordersKeyOf("c", commerce.OrderFilter{}, repository.PageArgs{First: 5}, withItems) != ordersKeyOf("c", commerce.OrderFilter{}, repository.PageArgs{First: 5}, withItems) {
		t.Fatal("one list and one level of its elements: one key")
	}
	if ordersKeyOf("c", commerce.OrderFilter{Status: &shipped}, repository.PageArgs{}, withItems) == ordersKeyOf("c", commerce.OrderFilter{Status: &shipped}, repository.PageArgs{}, without) {
		t.Fatal("what the elements need next is part of the read: another level, another key")
	}
	empty := ""
	if locationsKeyOf(hr.LocationFilter{Country: "US", State: &empty}, repository.PageArgs{}, nil) == locationsKeyOf(hr.LocationFilter{Country: "US"}, repository.PageArgs{}, nil) {
		t.Fatal("an empty state is not an absent one")
	}
}

// Lists started as a whole level are read at once, without waiting out the window, together with
// any list already gathering; the window's own timer then finds nothing left to read.
func TestListLoaderDispatchesAWholeLevelAtOnce(t *testing.T) {
	f := &countingFetcher{}
	ll := newListLoader[int, int](f, time.Hour)
	ll.reserve(context.Background(), 9) // gathering in a window that would close in an hour
	ll.mu.Lock()
	gathering := ll.open
	ll.mu.Unlock()
	ll.startAll(context.Background(), []int{1, 2, 9})
	for _, k := range []int{1, 2, 9} {
		if v, err := ll.load(context.Background(), k); v != k*10 || err != nil {
			t.Fatalf("load(%d) = %d, %v", k, v, err)
		}
	}
	ll.flush(gathering) // the hour is up
	if got := f.calls(); len(got) != 1 || !slices.Equal(got[0], []int{9, 1, 2}) {
		t.Fatalf("fetches %v, want one of keys 9, 1, 2", got)
	}
	ll.reserve(context.Background(), 3) // a resolver's own list: it waits for its siblings
	ll.reserve(context.Background(), 4)
	ll.mu.Lock()
	open := ll.open
	ll.mu.Unlock()
	if open == nil || !slices.Equal(open.keys, []int{3, 4}) || len(f.calls()) != 1 {
		t.Fatalf("lists their resolvers ask for gather in the window: open %+v, fetches %v", open, f.calls())
	}
}

// stubLevel is a Level that reads nothing ahead: two of them are two levels.
type stubLevel struct{ started int }

func (*stubLevel) Steps() int                                        { return 1 }
func (*stubLevel) Lookups(int, []repository.Entity) []repository.Key { return nil }
func (s *stubLevel) Start(context.Context, []repository.Entity)      { s.started++ }
func (*stubLevel) StartsLists() bool                                 { return true }
func (*stubLevel) Targets([]repository.Entity, func(repository.Key) (repository.Entity, bool)) []LevelObjects {
	return nil
}

func (*stubLevel) RelationTargets(int, []repository.Entity, func(repository.Key) (repository.Entity, bool)) []LevelObjects {
	return nil
}

// Ticket lists started for a level of users are the lists their resolvers then ask for, with the
// page size left out: one Query per user in all.
func TestStartedTicketListsAreTheOnesAskedFor(t *testing.T) {
	repo := storetest.New(t)
	org := createOrgs(t, repo, 1)[0]
	var users []*saas.User
	for i := range 3 {
		u, err := repo.CreateUser(context.Background(), org.ID, fmt.Sprintf("user %d", i), fmt.Sprintf("u%d@example.com", i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := repo.CreateTicket(context.Background(), org.ID, u.ID, "title", "body"); err != nil {
			t.Fatal(err)
		}
		users = append(users, u)
	}
	ctx, m := repository.WithMeter(context.Background())
	l := New(repo, Options{})
	ids := make([][2]string, len(users))
	for i, u := range users {
		ids[i] = [2]string{u.OrgID, u.ID}
	}
	level := &stubLevel{}
	l.StartTicketsOfUsers(ctx, ids, saas.TicketFilter{}, repository.PageArgs{First: repository.DefaultPageSize}, level)
	for _, u := range users {
		p, err := l.TicketsOfUser(ctx, org.ID, u.ID, saas.TicketFilter{}, repository.PageArgs{}, level)
		if err != nil || len(p.Items) != 1 {
			t.Fatalf("tickets of %s: %+v, %v", u.ID, p, err)
		}
	}
	if c := m.Usage().Calls; c["Query"] != 3 || m.Usage().TotalCalls != 3 {
		t.Fatalf("calls %v, want one Query per user", c)
	}
	if level.started != 1 {
		t.Fatalf("the level's child lists started %d times, want once for the whole level", level.started)
	}
}

// flatLevel is a level whose objects need one step of lookups (their own keys, here) and no
// child list: its lists may be answered as they come back.
type flatLevel struct{}

func (flatLevel) Steps() int        { return 1 }
func (flatLevel) StartsLists() bool { return false }
func (flatLevel) Start(context.Context, []repository.Entity) {
}
func (flatLevel) Targets([]repository.Entity, func(repository.Key) (repository.Entity, bool)) []LevelObjects {
	return nil
}
func (flatLevel) RelationTargets(int, []repository.Entity, func(repository.Key) (repository.Entity, bool)) []LevelObjects {
	return nil
}
func (flatLevel) Lookups(_ int, objects []repository.Entity) []repository.Key {
	keys := make([]repository.Key, len(objects))
	for i, o := range objects {
		keys[i] = o.Key()
	}
	return keys
}

// indexKey is a test list's key: its index and its page.
type indexKey struct {
	i int
	listPage
}

// The lists of a flat level are handed to their resolvers as each comes back, not when the
// slowest one is; their elements' lookups are held and sent in one batch when the last is back.
func TestAFlatLevelsListsAreAnsweredAsTheyComeBack(t *testing.T) {
	repo := storetest.New(t)
	orgs := createOrgs(t, repo, 2)
	ctx, m := repository.WithMeter(context.Background())
	l := New(repo, Options{})
	release, answered, done := make(chan struct{}), make(chan int, 2), make(chan struct{})
	go func() {
		defer close(done)
		keys := []indexKey{{0, listPage{level: flatLevel{}}}, {1, listPage{level: flatLevel{}}}}
		readLevel(ctx, l, keys, true, "test",
			func(_ context.Context, k indexKey) (repository.Page[*saas.Organization], error) {
				if k.i == 1 {
					<-release // the slow list of the level
				}
				return repository.Page[*saas.Organization]{Items: []*saas.Organization{orgs[k.i]}}, nil
			},
			func(i int, _ repository.Page[*saas.Organization], _ error) { answered <- i })
	}()
	select {
	case i := <-answered:
		if i != 0 {
			t.Fatalf("answered list %d first", i)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first list waits for the slow one")
	}
	if n := m.Usage().TotalCalls; n != 0 {
		t.Fatalf("%d calls before the level is complete: its lookups must wait to go in one batch", n)
	}
	close(release)
	<-answered
	<-done
	for _, o := range orgs {
		if _, err := lookupOrg(ctx, l, o.ID); err != nil {
			t.Fatal(err)
		}
	}
	if c := m.Usage().Calls; c["BatchGetItem"] != 1 || m.Usage().TotalCalls != 1 {
		t.Fatalf("calls %v, want the level's lookups in one BatchGetItem", c)
	}
}
