package stream_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/saas"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
	"singletable/repository/stream"
)

// retitle sets a ticket's title to phase 0, phase 1, ... and returns the titles.
func retitle(t *testing.T, repo *store.Store, tk *saas.Ticket, phase string, n int) []string {
	t.Helper()
	var titles []string
	for i := range n {
		title := fmt.Sprintf("%s %d", phase, i)
		if _, err := repo.UpdateTicket(context.Background(), tk.OrgID, tk.ID, saas.TicketPatch{Title: &title}); err != nil {
			t.Fatalf("%s: %v", title, err)
		}
		titles = append(titles, title)
	}
	return titles
}

// The reader survives throttling (some calls, then every call for a while) and an outage of
// DynamoDB: it backs off, reports the outage and its end, and loses or repeats no change.
func TestStreamSurvivesThrottlingAndAnOutage(t *testing.T) {
	th, out := &repotest.Throttler{}, &repotest.Outage{}
	repo := storetest.New(t, func(c *repository.Config) {
		c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return out.Wrap(th.Wrap(rt)) }
	})
	c := stream.CollectStream(t, repo.Stream, stream.StreamOptions{PollInterval: 10 * time.Millisecond, DescribeInterval: 100 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	c.WaitStream(t)
	ctx := context.Background()
	org, err := repo.CreateOrganization(ctx, "Org")
	if err != nil {
		t.Fatal(err)
	}
	u, err := repo.CreateUser(ctx, org.ID, "User", "user@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := repo.CreateTicket(ctx, org.ID, u.ID, "title", "body")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	update := func(phase string, n int) { want = append(want, retitle(t, repo, tk, phase, n)...) }

	th.Throttle(2) // every other call: the SDK's retries absorb it
	update("some throttled", 10)
	update("written before all are throttled", 5)
	th.Throttle(1) // every call: the reader backs off on its own
	repotest.WaitFor(t, "the reader to be throttled past the SDK's retries", func() bool { return th.Throttled() > 20 })
	th.Throttle(0)
	if c.Outages.Load() != 0 {
		t.Fatal("throttling was reported as an outage")
	}
	update("written before the outage", 5)
	out.Set(true)
	repotest.WaitFor(t, "the reader to report the outage", func() bool { return c.Outages.Load() == 1 && out.Failed() > 10 })
	out.Set(false)
	repotest.WaitFor(t, "the reader to report the end of the outage", func() bool { return c.Ups.Load() == 1 })
	update("after", 3)

	last := want[len(want)-1]
	var got []string
	for _, ch := range c.Until(t, func(ch stream.Change) bool {
		nt, _ := ch.New.(*saas.Ticket)
		return nt != nil && nt.Title == last
	}) {
		if nt, ok := ch.New.(*saas.Ticket); ok && ch.Kind == stream.ChangeUpdated {
			got = append(got, nt.Title)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %d updates %v\nwant each of %d once, in order: %v", len(got), got, len(want), want)
	}
	if c.Outages.Load() != 1 || c.Gaps.Load() != 0 {
		t.Fatalf("outages %d (throttling is not one), gaps %d", c.Outages.Load(), c.Gaps.Load())
	}
}
