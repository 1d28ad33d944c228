package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"singletable/changefeed"
	"singletable/repository"
	"singletable/repository/saas"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
	"singletable/repository/stream"
	"singletable/server"
)

// The burst: subscribers that read as fast as they can while another writer imports a thousand
// tickets of their organization in one go (BatchWriteItem, 25 at a time, with an SDK client of
// its own). Every subscriber must get every ticket: dispatch waits for a subscriber whose buffer
// is full instead of dropping it.

// onlyBurst is the -only value that runs the burst alone.
const onlyBurst = "burst"

const (
	burstSubscribers = 100
	burstTickets     = 1000
)

// burstResult is the burst's measurement.
type burstResult struct {
	subscribers, tickets int
	delivered, dropped   int
	p50, p99             time.Duration
	peakHeap             uint64
	elapsed              time.Duration
}

// runBurst is `-only burst`: a table of its own with one organization, the burst, its table on
// stdout.
func runBurst(ctx context.Context) error {
	_, seeder, _, drop, err := openRepos(ctx, 0, false)
	if err != nil {
		return err
	}
	defer drop()
	org, err := seeder.CreateOrganization(ctx, "Burst")
	if err != nil {
		return err
	}
	user, err := seeder.CreateUser(ctx, org.ID, "Reporter", "reporter@burst.example")
	if err != nil {
		return err
	}
	r, err := measureBurst(ctx, seeder, org, user)
	if err != nil {
		return err
	}
	fmt.Print(burstTable(r))
	return nil
}

// measureBurst opens the subscribers on a server whose hub reads the table's stream, imports the
// tickets and waits for every subscriber to get them, sampling the heap meanwhile.
func measureBurst(ctx context.Context, repo *store.Store, org *saas.Organization, user *saas.User) (burstResult, error) {
	res := burstResult{subscribers: burstSubscribers, tickets: burstTickets}
	hub := changefeed.New(repo.StreamReader(stream.StreamOptions{}), nil, changefeed.Options{})
	hub.Start(ctx)
	defer hub.Close()
	select {
	case <-hub.Ready():
	case <-time.After(time.Minute):
		return res, fmt.Errorf("burst: the hub did not find the table's stream")
	}
	way := newHTTPWay(repo, server.Config{Hub: hub})
	defer way.close()
	subs := make([]*subscriber, burstSubscribers)
	for i := range subs {
		s, err := subscribe(ctx, way, orgGID(org))
		if err != nil {
			return res, err
		}
		defer s.close()
		subs[i] = s
	}
	time.Sleep(500 * time.Millisecond) // every subscription is open on the server
	var peak atomic.Uint64
	stop := sampleHeap(&peak)
	log.Printf("burst: %d subscribers, %d tickets imported by another writer", burstSubscribers, burstTickets)
	start := time.Now()
	tickets, err := storetest.ImportTickets(ctx, repository.Config{Endpoint: os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"), Table: repo.Table()}, org.ID, user.ID, burstTickets)
	if err != nil {
		stop()
		return res, err
	}
	written := map[string]time.Time{}
	for _, t := range tickets {
		written[t.Title] = t.CreatedAt
	}
	lat, _, dropped := deliveries(subs, written, 20*time.Second)
	res.elapsed = time.Since(start)
	stop()
	res.peakHeap, res.delivered, res.dropped = peak.Load(), len(lat), dropped
	if len(lat) > 0 {
		res.p50, res.p99 = percentiles(lat)
	}
	return res, nil
}

// sampleHeap records the largest heap in use, every 20 ms, until stop is called.
func sampleHeap(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// burstTable is the burst's section of the report.
func burstTable(r burstResult) string {
	return fmt.Sprintf("| subscribers | tickets imported | events delivered (of %d) | subscriptions dropped | write → delivery p50 ms | p99 ms | peak heap MB | all delivered after s |\n|---|---|---|---|---|---|---|---|\n| %d | %d | %d | %d | %s | %s | %.1f | %.1f |\n",
		r.subscribers*r.tickets, r.subscribers, r.tickets, r.delivered, r.dropped, ms(r.p50), ms(r.p99), float64(r.peakHeap)/(1<<20), r.elapsed.Seconds())
}
