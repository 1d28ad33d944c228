package loaders

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/saas"
	"singletable/repository/store/storetest"
)

// A key that a batch of a later round is reading is read again by a level of an earlier round,
// not waited for: what follows the level stays one round after its own read, however the two
// chains of reads happen to interleave.
func TestAKeyALaterRoundReadsIsReadAgainNotWaitedFor(t *testing.T) {
	g := &gate{}
	repo := storetest.New(t, g.option)
	orgs := createOrgs(t, repo, 3)
	k, k2, k3 := orgs[0].Key(), orgs[1].Key(), orgs[2].Key()
	ctx, m := repository.WithMeter(context.Background())
	l := New(repo, Options{})
	g.hold(k)
	// A deep chain reads k in round 7, and is slow to answer.
	l.FetchLevel(repository.WithRound(ctx, 6), []repository.Key{k})
	// A level of round 5 needs k too, and k3 after it.
	l.FetchLevel(repository.WithRound(ctx, 4), []repository.Key{k, k2}, &keyLevel{next: map[repository.Key][]repository.Key{k: {k3}}})
	g.release()
	for _, o := range orgs[1:] {
		if _, err := lookupOrg(ctx, l, o.ID); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range m.Records() {
		if c.Round != 5 && c.Round != 6 && c.Round != 7 {
			t.Errorf("a call in round %d, want 5 (the level), 6 (k3, after it) or 7 (the deep chain): %+v", c.Round, m.Records())
		}
	}
}

// An object read already that a level reserves is handed to its callers only once that level has
// reserved what the object needs next: a caller never looks that up alone.
func TestAnObjectReadAlreadyWaitsForTheLevelThatTakesIt(t *testing.T) {
	g := &gate{}
	repo := storetest.New(t, g.option)
	orgs := createOrgs(t, repo, 3)
	k, k2, k3 := orgs[0].Key(), orgs[1].Key(), orgs[2].Key()
	ctx, m := repository.WithMeter(context.Background())
	ctx = repository.WithRound(ctx, 0)
	l := New(repo, Options{})
	l.byKey.Prime(k, orgs[0]) // another place read it
	g.hold(k2)
	l.FetchLevel(ctx, []repository.Key{k, k2}, &keyLevel{next: map[repository.Key][]repository.Key{k: {k3}}})
	askAfterIt(t, ctx, l, orgs[0], orgs[2], g.release)
	everyCallKnowsItsRound(t, m)
}

// An object two levels take is handed to its callers once both have reserved what it needs next,
// not only the last one: a caller of the first level never looks up alone what that level's
// batch is about to reserve.
func TestAnObjectTwoLevelsTakeWaitsForBoth(t *testing.T) {
	g := &gate{}
	repo := storetest.New(t, g.option)
	orgs := createOrgs(t, repo, 4)
	k, k2, k4 := orgs[0].Key(), orgs[1].Key(), orgs[3].Key()
	ctx, m := repository.WithMeter(context.Background())
	ctx = repository.WithRound(ctx, 0)
	l := New(repo, Options{})
	g.hold(k)
	slow := make(chan struct{}) // the first level's reservations after its read, held back
	l.FetchLevel(ctx, []repository.Key{k}, &keyLevel{next: map[repository.Key][]repository.Key{k: {k4}}, block: slow})
	l.FetchLevel(ctx, []repository.Key{k, k2}, &keyLevel{})
	g.release()
	askAfterIt(t, ctx, l, orgs[0], orgs[3], func() { close(slow) })
	everyCallKnowsItsRound(t, m)
}

// askAfterIt asks for first, then for next (what its level reserves after it), as a resolver
// would; release is called once the asks are done or have waited a while (they must wait for
// it when the loaders are right).
func askAfterIt(t *testing.T, ctx context.Context, l *Loaders, first, next *saas.Organization, release func()) {
	t.Helper()
	asked := make(chan error, 1)
	go func() {
		_, err := lookupOrg(ctx, l, first.ID)
		if err == nil {
			_, err = lookupOrg(ctx, l, next.ID)
		}
		asked <- err
	}()
	var err error
	select {
	case err = <-asked:
		release()
	case <-time.After(200 * time.Millisecond):
		release()
		err = <-asked
	}
	if err != nil {
		t.Fatal(err)
	}
}

// everyCallKnowsItsRound fails when a call went through the key loader's window (a lookup asked
// alone, outside the batches the levels reserve): only those do not know their round.
func everyCallKnowsItsRound(t *testing.T, m *repository.Meter) {
	t.Helper()
	for _, c := range m.Records() {
		if c.Round == 0 {
			t.Errorf("a lookup went out alone: %+v", m.Records())
			return
		}
	}
}

// keyLevel is a Level of one step: each object's lookups are next's, and Lookups waits for block
// when it is set.
type keyLevel struct {
	next  map[repository.Key][]repository.Key
	block chan struct{}
}

func (s *keyLevel) Steps() int { return 1 }

func (s *keyLevel) Lookups(n int, objects []repository.Entity) []repository.Key {
	if s.block != nil {
		<-s.block
	}
	var keys []repository.Key
	for _, o := range objects {
		keys = append(keys, s.next[o.Key()]...)
	}
	return keys
}

func (s *keyLevel) Start(context.Context, []repository.Entity) {}
func (s *keyLevel) StartsLists() bool                          { return false }

func (s *keyLevel) Targets([]repository.Entity, func(repository.Key) (repository.Entity, bool)) []LevelObjects {
	return nil
}

func (s *keyLevel) RelationTargets(int, []repository.Entity, func(repository.Key) (repository.Entity, bool)) []LevelObjects {
	return nil
}

// gate holds back the DynamoDB requests that name a key (hold) until release.
type gate struct {
	mu     sync.Mutex
	pk     string
	opened chan struct{}
}

func (g *gate) option(c *repository.Config) {
	c.WrapTransport = repotest.Chain(func(next http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			g.mu.Lock()
			pk, opened := g.pk, g.opened
			g.mu.Unlock()
			if pk != "" && r.Body != nil {
				body, err := io.ReadAll(r.Body)
				if err != nil {
					return nil, err
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				if strings.Contains(string(body), pk) {
					<-opened
				}
			}
			return next.RoundTrip(r)
		})
	}, c.WrapTransport)
}

func (g *gate) hold(k repository.Key) {
	g.mu.Lock()
	g.pk, g.opened = k.PK, make(chan struct{})
	g.mu.Unlock()
}

func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.opened != nil {
		close(g.opened)
		g.pk, g.opened = "", nil
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
