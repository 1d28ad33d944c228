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
	"singletable/repository/hr"
	"singletable/repository/repotest"
	"singletable/repository/store/storetest"
	"singletable/server"
)

// BenchmarkLoaderWait measures what the dataloader's batch window costs and buys where it still
// matters: lists whose resolvers ask for them one by one, because no level started them. The
// operation lists 12 engineers (one Query, AP12) and each one's manager (relation items, then the
// managers: read ahead by the list) and each manager's direct reports. The managers are objects of
// a to-one field, whose child lists no level starts: the 12 report lists line up in the
// inverse-relation loader's window, run their Queries and look all their members up in ONE batch.
// Minimum: 3 BatchGetItem per operation (manager relations, managers, reports). The window is the
// dataloader wait: shorter than the time gqlgen needs to start the 12 list resolvers, it splits
// them into groups whose members are fetched in separate batches; longer, it adds its length
// before the Queries. Run it with:
//
//	make bench-wait     (or: go test ./server -run '^$' -bench LoaderWait -benchtime 200x)
//
// and see docs/api.md ("Choosing the dataloader wait") for the figures and the choice.
func BenchmarkLoaderWait(b *testing.B) {
	repo := storetest.New(b, repotest.WithLatency(2*time.Millisecond, 0))
	ctx := b.Context()
	loc, err := repo.CreateLocation(ctx, hr.LocationInput{Country: "US", State: "CA", City: "San Jose", PostalCode: "95113", Address: "1 Market St"})
	if err != nil {
		b.Fatal(err)
	}
	for m := range 12 {
		dept, err := repo.CreateDepartment(ctx, fmt.Sprintf("Dept %d", m), loc.Ref())
		if err != nil {
			b.Fatal(err)
		}
		head, _, err := repo.HireEmployee(ctx, hr.HireInput{DepartmentID: dept.ID, Name: fmt.Sprintf("Head %d", m), Email: fmt.Sprintf("h%d@x.io", m), JobTitle: "Director"})
		if err != nil {
			b.Fatal(err)
		}
		for e, title := range []string{"Engineer", "Analyst", "Analyst"} {
			in := hr.HireInput{DepartmentID: dept.ID, Name: fmt.Sprintf("E %d-%d", m, e), Email: fmt.Sprintf("e%d.%d@x.io", m, e), JobTitle: title, ManagerID: &head.ID}
			if _, _, err := repo.HireEmployee(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	}
	const minBatches = 3
	body, _ := json.Marshal(map[string]any{
		"query": `{ employeesByJobTitle(jobTitle: "Engineer", first: 12) { edges { node { manager { directReports(first: 3) { edges { node { name } } } } } } } }`,
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
						if n > minBatches {
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
