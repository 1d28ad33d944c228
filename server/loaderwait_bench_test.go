package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"singletable/loaders"
	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/server"
)

// BenchmarkLoaderWait measures what the dataloader's batch window costs and buys. The operation
// looks 60 tickets up by id and then each ticket's reporter and organization: two levels of key
// lookups, whose minimum is one BatchGetItem each. A window shorter than the time gqlgen needs to
// start the resolvers of one level splits the level into several batches (more calls); a longer
// one adds its length to every level. Run it with:
//
//	make bench-wait     (or: go test ./server -run '^$' -bench LoaderWait -benchtime 200x)
//
// and see the README ("Choosing the dataloader wait") for the figures and the choice.
func BenchmarkLoaderWait(b *testing.B) {
	repo := repotest.NewRepo(b, func(c *repository.Config) { c.AddedLatency = 2 * time.Millisecond })
	ctx := b.Context()
	var ids []string
	for o := range 3 {
		org, err := repo.CreateOrganization(ctx, fmt.Sprintf("Org %d", o))
		if err != nil {
			b.Fatal(err)
		}
		for u := range 4 {
			user, err := repo.CreateUser(ctx, org.ID, "U", fmt.Sprintf("u%d@x.io", u))
			if err != nil {
				b.Fatal(err)
			}
			for range 5 {
				tk, err := repo.CreateTicket(ctx, org.ID, user.ID, "T", "B")
				if err != nil {
					b.Fatal(err)
				}
				ids = append(ids, ticketID(tk))
			}
		}
	}
	body, _ := json.Marshal(map[string]any{
		"query":     `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Ticket { title reporter { name } organization { name } } } }`,
		"variables": map[string]any{"ids": ids},
	})
	for _, wait := range []time.Duration{50 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 16 * time.Millisecond} {
		for _, par := range []int{1, 8} {
			b.Run(fmt.Sprintf("wait=%v/concurrency=%d", wait, par), func(b *testing.B) {
				h := server.New(repo, server.Config{Loaders: loaders.Options{Wait: wait}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
				ts := httptest.NewServer(h)
				defer ts.Close()
				var batches, ops, split int64
				mu := make(chan struct{}, 1)
				mu <- struct{}{}
				b.SetParallelism(par)
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						resp, err := http.Post(ts.URL+"/query", "application/json", bytes.NewReader(body))
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
						if n > 2 {
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
