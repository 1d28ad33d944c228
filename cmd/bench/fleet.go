package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"slices"
	"time"

	"singletable/changefeed"
	"singletable/fleet"
	"singletable/repository/store"
	"singletable/repository/stream"
	"singletable/server"
)

// The fleet: three server instances in this process sharing one Redis (package fleet, what
// REDIS_URL turns on), one of them reading the table's stream for all and publishing its changes
// through Redis. Measured: write → delivery with 1,000 subscribers spread over the three, and what
// the shared limiter (rate limit and capacity budget in Redis) adds to a request against the
// in-process one, in the same run. The Redis is the one scripts/with-dynamodb-local.sh starts
// (TEST_REDIS_URL, or -redis); without one the section is left out.

// onlyFleet is the -only value that runs this section alone (it prints it, writes no report).
const onlyFleet = "fleet"

// fleetSize is the number of instances; fleetSubscribers the subscribers spread over them.
const (
	fleetSize        = 3
	fleetSubscribers = 1000
	limiterSamples   = 400
)

// fleetResult is the section's measurements.
type fleetResult struct {
	fanOut subscriptionResult
	// local and shared are the p50 of a request that reads nothing ({ __typename }) through the
	// in-process limiter and through the shared one; their difference is Redis's share.
	local, shared time.Duration
}

// measureFleet runs the section when a Redis is given.
func (b *bench) measureFleet(ctx context.Context, rep *report) error {
	if b.cfg.redis == "" {
		log.Printf("fleet: no Redis (TEST_REDIS_URL or -redis): section left out")
		return nil
	}
	prefix := fmt.Sprintf("bench-%d-%d:", os.Getpid(), time.Now().UnixNano())
	var ways []*httpWay
	var first *fleet.Fleet
	for i := range fleetSize {
		f, err := fleet.Open(b.cfg.redis, fleet.Options{Prefix: prefix, Instance: fmt.Sprint("bench-", i)})
		if err != nil {
			return err
		}
		defer f.Close()
		if first == nil {
			first = f
		}
		hub := changefeed.New(f.Feed(b.seeder, stream.StreamOptions{}), nil, changefeed.Options{})
		hub.Start(ctx)
		defer hub.Close()
		select {
		case <-hub.Ready():
		case <-time.After(time.Minute):
			return fmt.Errorf("fleet: instance %d did not get the fleet's changes", i)
		}
		way := newHTTPWay(b.seeder, server.Config{Hub: hub, SharedLimits: f, SharedPersistedQueries: f})
		defer way.close()
		ways = append(ways, way)
	}
	log.Printf("fleet: %d subscribers over %d instances", fleetSubscribers, fleetSize)
	org := b.d.orgs[0]
	r, err := measureFanOut(ctx, ways, b.seeder, org, b.d.users[org.ID][0], fleetSubscribers)
	if err != nil {
		return fmt.Errorf("fleet: %w", err)
	}
	res := &fleetResult{fanOut: r}
	log.Printf("fleet: the shared limiter against the in-process one")
	if res.local, res.shared, err = limiterLatency(ctx, b.seeder, first); err != nil {
		return fmt.Errorf("fleet: %w", err)
	}
	rep.fleet = res
	return nil
}

// limiterLatency measures, alternating, the p50 of a request that makes no DynamoDB call on a
// server with the in-process limiter and on one with the shared limiter (rate limit and capacity
// budget on, as in production).
func limiterLatency(ctx context.Context, repo *store.Store, shared server.SharedLimits) (local, withRedis time.Duration, err error) {
	cfg := server.Config{RateLimitRPS: 1e6, CapacityBudgetRCU: server.DefaultCapacityBudgetRCU}
	inProcess := newHTTPWay(repo, cfg)
	defer inProcess.close()
	cfg.SharedLimits = shared
	viaRedis := newHTTPWay(repo, cfg)
	defer viaRedis.close()
	const query = `{ __typename }`
	runs := [2]runner{inProcess.runner(query, nil), viaRedis.runner(query, nil)}
	var walls [2][]time.Duration
	for i := range 2 * limiterSamples {
		s, err := runs[i%2](ctx)
		if err != nil {
			return 0, 0, err
		}
		walls[i%2] = append(walls[i%2], s.wall)
	}
	for i := range walls {
		slices.Sort(walls[i])
	}
	return walls[0][len(walls[0])/2], walls[1][len(walls[1])/2], nil
}

// writeFleet writes the section.
func (rep *report) writeFleet(w func(string, ...any)) {
	f := rep.fleet
	if f == nil {
		return
	}
	r := f.fanOut
	w("## A fleet of three instances on Redis\n\n")
	w("Three server instances in this process, each with its own hub, sharing one Redis (`REDIS_URL`'s machinery): one holds the lease and reads the table's stream, publishing each change to a Redis Stream that every instance reads (docs/operations.md, \"A fleet of instances on Redis\"). %d WebSocket subscribers spread evenly over the three, all subscribed to one organization's tickets; %d tickets written to the table directly, one every %v. Latency is from the write's start to each subscriber's receipt, over every (subscriber, event) pair. The limiter rows: %d requests `{ __typename }` (no DynamoDB call) to one server with the in-process rate limiter and capacity budget, and as many, alternating, to one whose buckets are in Redis (three round trips: the rate limit, the budget's reservation and its settlement); Redis on the same machine.\n\n",
		r.subscribers, subscriptionWrites, writeSpacing, limiterSamples)
	w("| subscribers | instances | events delivered | missed | write → delivery p50 ms | p99 ms |\n|---|---|---|---|---|---|\n")
	w("| %d | %d | %d | %d | %s | %s |\n\n", r.subscribers, fleetSize, r.delivered, r.missed, ms(r.p50), ms(r.p99))
	w("| limiter | request p50 ms |\n|---|---|\n| in-process | %s |\n| shared (Redis) | %s |\n| added by Redis | %s |\n\n", ms(f.local), ms(f.shared), ms(f.shared-f.local))
}

// printFleet runs the fleet's section alone and prints it (-only fleet).
func printFleet(ctx context.Context, b *bench, rep *report) error {
	if b.cfg.redis == "" {
		return fmt.Errorf("-only %s needs a Redis: -redis or TEST_REDIS_URL (scripts/with-dynamodb-local.sh)", onlyFleet)
	}
	if err := b.measureFleet(ctx, rep); err != nil {
		return err
	}
	rep.writeFleet(func(format string, a ...any) { fmt.Printf(format, a...) })
	return nil
}
