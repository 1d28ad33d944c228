package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/store/storetest"
	"singletable/server"
)

const nestedRead = `{ organizations(first: 5) { edges { node { name users(first: 5) { edges { node { name email tickets(first: 5) { edges { node { title reporter { name } } } } } } } } } } }`

// runConcurrently runs n calls of f on `workers` goroutines and returns their latencies.
func runConcurrently(n, workers int, f func(i int)) []time.Duration {
	lat := make([]time.Duration, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				start := time.Now()
				f(i)
				lat[i] = time.Since(start)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return lat
}

// TestThrottlingDoesNotFailUsers puts a fault injector in front of DynamoDB Local that throttles
// every third call. The SDK's retryer (more tries, capped jittered backoff, no retry quota)
// turns that into latency, not failures: 200 nested reads at concurrency 8 all succeed with the
// same data as without throttling, 24 concurrent createUser all succeed and are all stored. A
// write that does fail (every call throttled) leaves no email guard behind.
func TestThrottlingDoesNotFailUsers(t *testing.T) {
	th := &repotest.Throttler{}
	a := newAPI(t, server.Config{}, func(c *repository.Config) { c.WrapTransport = th.Wrap })
	d := a.seedSaaS(3, 4, 3)
	want := a.ok(nestedRead, nil, nil).Data

	th.Throttle(3)
	var mu sync.Mutex
	var failed []string
	runConcurrently(200, 8, func(int) {
		r := a.query(nestedRead, nil)
		if len(r.Errors) > 0 || !bytes.Equal(r.Data, want) {
			mu.Lock()
			failed = append(failed, fmt.Sprintf("%+v", r.Errors))
			mu.Unlock()
		}
	})
	if len(failed) > 0 || th.Throttled() < 200 {
		t.Fatalf("%d of 200 nested reads failed (%d of %d calls throttled): %v", len(failed), th.Throttled(), th.Calls(), failed[:min(3, len(failed))])
	}

	org := d.orgs[0]
	const create = `mutation($org: ID!, $email: String!) { createUser(input: {organizationId: $org, name: "New", email: $email}) { id email } }`
	email := func(i int) string { return fmt.Sprintf("new%d@example.com", i) }
	acknowledged := make([]bool, 24)
	runConcurrently(24, 24, func(i int) {
		r := a.query(create, map[string]any{"org": orgID(org), "email": email(i)})
		acknowledged[i] = len(r.Errors) == 0
	})
	th.Throttle(0)
	if n := countTrue(acknowledged); n != 24 {
		t.Fatalf("%d of 24 concurrent createUser succeeded under throttling", n)
	}
	page, err := a.repo.UsersOfOrganization(t.Context(), org.ID, repository.PageArgs{First: 100})
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, u := range page.Items {
		stored[u.Email] = true
	}
	for i := range 24 {
		if !stored[email(i)] {
			t.Fatalf("acknowledged user %s is not stored", email(i))
		}
		// Its email guard is stored too: a second user with the address is a conflict.
		if r := a.query(create, map[string]any{"org": orgID(org), "email": email(i)}); r.code(t) != "CONFLICT" {
			t.Fatalf("duplicate of %s: %+v", email(i), r.Errors)
		}
	}

	// A write that fails for good (every call throttled) is UNAVAILABLE and leaves nothing.
	th.Throttle(1)
	r := a.query(create, map[string]any{"org": orgID(org), "email": "late@example.com"})
	th.Throttle(0)
	if r.code(t) != "UNAVAILABLE" {
		t.Fatalf("createUser with every call throttled: %+v", r.Errors)
	}
	a.ok(create, map[string]any{"org": orgID(org), "email": "late@example.com"}, nil)
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// BenchmarkThrottledReads measures the nested read of TestThrottlingDoesNotFailUsers, 200 times
// at concurrency 8, with no throttling and with every third DynamoDB call throttled; it reports
// the median and 99th percentile latency and the failures (always 0).
//
//	scripts/with-dynamodb-local.sh go test ./server -run '^$' -bench ThrottledReads -benchtime 1x
func BenchmarkThrottledReads(b *testing.B) {
	th := &repotest.Throttler{}
	repo := storetest.New(b, func(c *repository.Config) { c.WrapTransport = th.Wrap })
	ctx := b.Context()
	for o := range 3 {
		org, err := repo.CreateOrganization(ctx, fmt.Sprintf("Org %d", o))
		if err != nil {
			b.Fatal(err)
		}
		for u := range 4 {
			user, err := repo.CreateUser(ctx, org.ID, "User", fmt.Sprintf("u%d@%s.example", u, org.ID))
			if err != nil {
				b.Fatal(err)
			}
			for k := range 3 {
				if _, err := repo.CreateTicket(ctx, org.ID, user.ID, fmt.Sprintf("T%d", k), "body"); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	ts := httptest.NewServer(server.New(repo, server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Auth: testAuth(b)}))
	defer ts.Close()
	body, _ := json.Marshal(map[string]string{"query": nestedRead})
	for _, every := range []int{0, 3} {
		b.Run(fmt.Sprintf("throttle-every-%d", every), func(b *testing.B) {
			th.Throttle(every)
			defer th.Throttle(0)
			var all []time.Duration
			var mu sync.Mutex
			failures := 0
			for b.Loop() {
				lat := runConcurrently(200, 8, func(int) {
					resp, err := post(b, ts.URL+"/query", "application/json", bytes.NewReader(body))
					ok := err == nil
					if ok {
						var out struct{ Errors []any }
						ok = json.NewDecoder(resp.Body).Decode(&out) == nil && len(out.Errors) == 0
						resp.Body.Close()
					}
					if !ok {
						mu.Lock()
						failures++
						mu.Unlock()
					}
				})
				all = append(all, lat...)
			}
			slices.Sort(all)
			b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(failures), "failures")
		})
	}
}

// TestRetriesStopAtTheRequestDeadline: a call throttled every time is retried only while the
// request has time left. With 30 tries allowed the backoff alone would add up to about half a
// minute; the 300 ms operation timeout ends the request long before.
func TestRetriesStopAtTheRequestDeadline(t *testing.T) {
	th := &repotest.Throttler{}
	a := newAPI(t, server.Config{OperationTimeout: 300 * time.Millisecond}, func(c *repository.Config) {
		c.WrapTransport = th.Wrap
		c.MaxAttempts = 30
	})
	th.Throttle(1)
	defer th.Throttle(0)
	start := time.Now()
	r := a.query(`{ organizations { edges { cursor } } }`, nil)
	took := time.Since(start)
	if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != "UNAVAILABLE" || took > 10*time.Second {
		t.Fatalf("after %s: %+v", took, r.Errors)
	}
	if th.Throttled() >= 30 {
		t.Fatalf("%d tries: the retryer went on past the deadline", th.Throttled())
	}
}
