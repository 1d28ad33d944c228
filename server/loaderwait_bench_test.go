package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"singletable/loaders"
	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/server"
)

// BenchmarkLoaderWait measures what the dataloader's batch window costs and buys where it still
// matters: sibling resolvers that must meet. The operation lists 12 customers (one Query, AP7)
// and each customer's OPEN orders with their items. The orders come from GSI1 without their
// items, so the 12 sibling order lists line up in the level loader (loaders.together), run their
// Queries, and look all their items up in ONE batch: minimum 1 BatchGetItem per operation. The
// level loader's window is the dataloader wait: shorter than the time gqlgen needs to start the
// 12 list resolvers, it splits them into groups whose items are fetched in separate batches;
// longer, it adds its length before the Queries. (Customers fetched by nodes(ids:) start their
// lists in one loop and do not depend on the window.) Run it with:
//
//	make bench-wait     (or: go test ./server -run '^$' -bench LoaderWait -benchtime 200x)
//
// and see the README ("Choosing the dataloader wait") for the figures and the choice.
func BenchmarkLoaderWait(b *testing.B) {
	repo := repotest.NewRepo(b, repotest.WithLatency(2*time.Millisecond, 0))
	ctx := b.Context()
	for c := range 12 {
		cu, err := repo.CreateCustomer(ctx, fmt.Sprintf("Customer %d", c), fmt.Sprintf("c%d@x.io", c), nil)
		if err != nil {
			b.Fatal(err)
		}
		for o := range 3 {
			if _, _, err := repo.PlaceOrder(ctx, cu.ID, orderLines(2), fmt.Sprintf("k%d", o)); err != nil {
				b.Fatal(err)
			}
		}
	}
	body, _ := json.Marshal(map[string]any{
		"query": `{ customers(first: 12) { edges { node { orders(first: 3, status: OPEN) { edges { node { items { sku } } } } } } } }`,
	})
	for _, wait := range []time.Duration{50 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 16 * time.Millisecond} {
		for _, par := range []int{0, 8} {
			b.Run(fmt.Sprintf("wait=%v/concurrency=%d", wait, max(1, par*runtime.GOMAXPROCS(0))), func(b *testing.B) {
				h := server.New(repo, server.Config{Loaders: loaders.Options{Wait: wait}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Auth: testAuth(b)})
				ts := httptest.NewServer(h)
				defer ts.Close()
				var batches, ops, split int64
				mu := make(chan struct{}, 1)
				mu <- struct{}{}
				run := func(body func(next func() bool)) {
					if par == 0 { // one request at a time
						b.ResetTimer()
						n := 0
						body(func() bool { n++; return n <= b.N })
						return
					}
					b.SetParallelism(par)
					b.ResetTimer()
					b.RunParallel(func(pb *testing.PB) { body(pb.Next) })
				}
				run(func(next func() bool) {
					for next() {
						resp, err := post(b, ts.URL+"/query", "application/json", bytes.NewReader(body))
						if err != nil {
							b.Error(err)
							return
						}
						var out struct {
							Errors     []any
							Extensions struct{ DynamoDB repository.Usage }
						}
						_ = json.NewDecoder(resp.Body).Decode(&out)
						resp.Body.Close()
						if len(out.Errors) > 0 {
							b.Errorf("errors: %v", out.Errors)
							return
						}
						n := int64(out.Extensions.DynamoDB.Calls["BatchGetItem"])
						<-mu
						batches += n
						ops++
						if n > 1 {
							split++
						}
						mu <- struct{}{}
					}
				})
				b.ReportMetric(float64(batches)/float64(ops), "batchgets/op")
				b.ReportMetric(100*float64(split)/float64(ops), "%split")
			})
		}
	}
}
