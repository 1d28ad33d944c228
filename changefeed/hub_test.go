package changefeed_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"singletable/apperr"
	"singletable/changefeed"
	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/saas"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
	"singletable/repository/stream"
	"singletable/telemetry"
)

// orgOf is the organization a SaaS change belongs to.
func orgOf(c stream.Change) string {
	switch e := c.Entity().(type) {
	case *saas.Organization:
		return e.ID
	case *saas.User:
		return e.OrgID
	case *saas.Ticket:
		return e.OrgID
	}
	return ""
}

// settle returns once every change written before it has been dispatched: a subscription opened
// after it gets only later writes.
func settle(t *testing.T, hub *changefeed.Hub, repo *store.Store) {
	t.Helper()
	probe, err := hub.Subscribe("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	barrier, err := repo.CreateOrganization(context.Background(), "barrier")
	if err != nil {
		t.Fatal(err)
	}
	receiveUntil(t, probe, changeOf(barrier.Key()))
}

// Each subscription gets what its filter accepts, from one reader; the hub counts them and opens
// a span per dispatched batch.
func TestStreamHubDeliversToEachSubscriptionWhatItsFilterAccepts(t *testing.T) {
	repo := storetest.New(t)
	m := telemetry.NewMetrics()
	spans := tracetest.NewInMemoryExporter()
	hub := startHub(t, repo, m, changefeed.Options{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))})
	ctx := context.Background()
	one, err := repo.CreateOrganization(ctx, "One")
	if err != nil {
		t.Fatal(err)
	}
	two, err := repo.CreateOrganization(ctx, "Two")
	if err != nil {
		t.Fatal(err)
	}
	settle(t, hub, repo)
	deliveredBefore := metric(t, m, "singletable_subscription_events_delivered_total")
	// Writes also change their parents' counters and add version items: the filters keep the
	// creations of organizations' objects only, so that what each subscription gets is exact.
	created := func(c stream.Change) bool { return c.Kind == stream.ChangeCreated && orgOf(c) != "" }
	onlyOne, err := hub.Subscribe("", func(c stream.Change) bool { return created(c) && orgOf(c) == one.ID })
	if err != nil {
		t.Fatal(err)
	}
	all, err := hub.Subscribe("", created)
	if err != nil {
		t.Fatal(err)
	}
	u1, err := repo.CreateUser(ctx, one.ID, "Ada", "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	u2, err := repo.CreateUser(ctx, two.ID, "Bob", "bob@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := repo.CreateTicket(ctx, one.ID, u1.ID, "title", "body")
	if err != nil {
		t.Fatal(err)
	}
	if got := metric(t, m, "singletable_subscriptions_open"); got != 2 {
		t.Fatalf("subscriptions_open %v", got)
	}
	gotOne := receiveUntil(t, onlyOne, changeOf(tk.Key()))
	if len(gotOne) != 2 || gotOne[0].Key != u1.Key() || gotOne[1].Kind != stream.ChangeCreated {
		t.Fatalf("the filtered subscription got %d changes: %+v", len(gotOne), gotOne)
	}
	gotAll := receiveUntil(t, all, changeOf(tk.Key()))
	var keys []repository.Key
	for _, c := range gotAll {
		keys = append(keys, c.Key)
	}
	if fmt.Sprint(keys) != fmt.Sprint([]repository.Key{u1.Key(), u2.Key(), tk.Key()}) {
		t.Fatalf("the unfiltered subscription got %v", keys)
	}
	if gotAll[2] != gotOne[1] {
		t.Error("a change is shared by the subscriptions that receive it, not copied")
	}
	// Changes that waited for buffer space are counted once their batch is delivered, which may
	// be just after the subscriber read them.
	delivered := func() float64 {
		return metric(t, m, "singletable_subscription_events_delivered_total") - deliveredBefore
	}
	for end := time.Now().Add(repotest.Wait); delivered() < 5 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := delivered(); got != 5 {
		t.Errorf("events delivered %v, want 2 + 3", got)
	}
	if !hasSpan(spans, "changefeed.dispatch") {
		t.Error("no changefeed.dispatch span")
	}
}

func hasSpan(spans *tracetest.InMemoryExporter, name string) bool {
	for _, s := range spans.GetSpans() {
		if s.Name == name {
			return true
		}
	}
	return false
}

// A subscription that does not keep up ends with ErrSlow once its buffer is full and it takes nothing for SlowAfter; another
// subscription on the same hub receives everything.
func TestStreamHubEndsOnlyTheSubscriptionThatDoesNotKeepUp(t *testing.T) {
	repo := storetest.New(t)
	m := telemetry.NewMetrics()
	hub := startHub(t, repo, m, changefeed.Options{Buffer: 4, SlowAfter: 100 * time.Millisecond})
	slow, err := hub.Subscribe("", nil)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := hub.Subscribe("", nil)
	if err != nil {
		t.Fatal(err)
	}
	var last *saas.Organization
	received := 0
	for i := range 10 {
		if last, err = repo.CreateOrganization(context.Background(), fmt.Sprintf("org %d", i)); err != nil {
			t.Fatal(err)
		}
		received += len(receiveUntil(t, fast, changeOf(last.Key()))) // reads as it goes
	}
	if received != 10 {
		t.Fatalf("the subscription that kept up got %d changes, want 10", received)
	}
	if left := drain(t, slow); len(left) != 4 {
		t.Fatalf("the slow subscription held %d changes, want its buffer of 4", len(left))
	}
	err = slow.Err()
	if !errors.Is(err, changefeed.ErrSlow) || apperr.CodeOf(err) != apperr.CodeUnavailable {
		t.Fatalf("the slow subscription ended with %v", err)
	}
	if fast.Err() != nil {
		t.Fatalf("the other subscription: %v", fast.Err())
	}
	if d, o := metric(t, m, "singletable_subscriptions_dropped_total"), metric(t, m, "singletable_subscriptions_open"); d != 1 || o != 1 {
		t.Fatalf("dropped %v, open %v", d, o)
	}
}

// Close completes every open subscription: the changes in its buffer are still read, then its
// channel closes with no error; the hub then refuses new subscriptions.
func TestStreamHubCloseCompletesSubscriptions(t *testing.T) {
	repo := storetest.New(t)
	m := telemetry.NewMetrics()
	hub := startHub(t, repo, m, changefeed.Options{})
	a, _ := hub.Subscribe("", nil)
	b, err := hub.Subscribe("", nil)
	if err != nil {
		t.Fatal(err)
	}
	org, err := repo.CreateOrganization(context.Background(), "Org")
	if err != nil {
		t.Fatal(err)
	}
	receiveUntil(t, a, changeOf(org.Key()))
	hub.Close()
	if left := drain(t, a); len(left) != 0 || a.Err() != nil {
		t.Fatalf("a: %d left, err %v", len(left), a.Err())
	}
	if left := drain(t, b); len(left) != 1 || left[0].Key != org.Key() || b.Err() != nil {
		t.Fatalf("b: %v, err %v", left, b.Err())
	}
	if _, err := hub.Subscribe("", nil); !errors.Is(err, changefeed.ErrShuttingDown) {
		t.Fatalf("Subscribe after Close: %v", err)
	}
	hub.Close()
	b.Close()
	if got := metric(t, m, "singletable_subscriptions_open"); got != 0 {
		t.Fatalf("subscriptions_open %v", got)
	}
}

// Throttling and an outage of DynamoDB end no subscription and lose no change; the outage is
// counted and its end seen.
func TestStreamHubKeepsSubscriptionsThroughAnOutage(t *testing.T) {
	th, out := &repotest.Throttler{}, &repotest.Outage{}
	repo := storetest.New(t, func(c *repository.Config) {
		c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return out.Wrap(th.Wrap(rt)) }
	})
	m := telemetry.NewMetrics()
	hub := startHub(t, repo, m, changefeed.Options{})
	sub, err := hub.Subscribe("", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	th.Throttle(2)
	before, err := repo.CreateOrganization(ctx, "before")
	if err != nil {
		t.Fatal(err)
	}
	th.Throttle(0)
	out.Set(true)
	repotest.WaitFor(t, "the outage to be reported", func() bool { return metric(t, m, "singletable_stream_outage") == 1 })
	out.Set(false)
	repotest.WaitFor(t, "the outage to end", func() bool { return metric(t, m, "singletable_stream_outage") == 0 })
	after, err := repo.CreateOrganization(ctx, "after")
	if err != nil {
		t.Fatal(err)
	}
	got := receiveUntil(t, sub, changeOf(after.Key()))
	if len(got) != 2 || got[0].Key != before.Key() {
		t.Fatalf("got %d changes, want before and after once each", len(got))
	}
	if n := metric(t, m, "singletable_stream_outages_total"); n != 1 || hub.Available() != nil {
		t.Fatalf("outages %v, available %v", n, hub.Available())
	}
}

// When the table's stream goes away, open subscriptions end with UNAVAILABLE and new ones are
// refused.
func TestStreamHubWithoutAStreamAnswersUnavailable(t *testing.T) {
	repo := storetest.New(t)
	hub := startHub(t, repo, nil, changefeed.Options{})
	sub, err := hub.Subscribe("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.DeleteTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	drain(t, sub)
	if !errors.Is(sub.Err(), repository.ErrNoStream) || apperr.CodeOf(sub.Err()) != apperr.CodeUnavailable {
		t.Fatalf("the subscription ended with %v", sub.Err())
	}
	if _, err := hub.Subscribe("", nil); !errors.Is(err, repository.ErrNoStream) {
		t.Fatalf("Subscribe without a stream: %v", err)
	}
}
