package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/store"
	"singletable/server"
)

// throttledResult is the deep SaaS tree run through a DynamoDB that throttles every third call
// (repotest.Throttler in the SDK's transport), against the same run without throttling: what
// the retryer costs in latency, and that no request fails.
type throttledResult struct {
	breadth, ops, concurrency int
	every                     int
	p50, p99                  [2]time.Duration // [without, with] throttling
	failures                  [2]int
	calls, throttled          int64
}

// measureThrottled runs ops operations of the deep SaaS tree at the given breadth, concurrency at
// a time, once without throttling and once with every third DynamoDB call throttled.
func measureThrottled(ctx context.Context, base repository.Config, latency time.Duration, d *dataset, breadth, ops, concurrency int) (throttledResult, error) {
	th := &repotest.Throttler{}
	cfg := base
	cfg.WrapTransport = th.Wrap
	cfg = withLatency(cfg, latency)
	repo, err := store.New(ctx, cfg)
	if err != nil {
		return throttledResult{}, err
	}
	way := newHTTPWay(repo, server.Config{})
	defer way.close()
	o := deepOps[0]
	run := way.runner(o.query, o.vars(d, breadth))
	res := throttledResult{breadth: breadth, ops: ops, concurrency: concurrency, every: 3}
	for i, every := range []int{0, res.every} {
		th.Throttle(every)
		lat, failed := runConcurrently(ctx, run, ops, concurrency)
		th.Throttle(0)
		slices.Sort(lat)
		if len(lat) > 0 {
			res.p50[i] = lat[len(lat)/2]
			res.p99[i] = lat[min(len(lat)-1, len(lat)*99/100)]
		}
		res.failures[i] = failed
	}
	res.calls, res.throttled = th.Calls(), th.Throttled()
	return res, nil
}

// runConcurrently runs n operations, c at a time, and returns the latencies of those that
// succeeded and how many failed.
func runConcurrently(ctx context.Context, run runner, n, c int) ([]time.Duration, int) {
	var (
		mu     sync.Mutex
		lat    []time.Duration
		failed atomic.Int64
		next   atomic.Int64
		wg     sync.WaitGroup
	)
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				s, err := run(ctx)
				if err != nil {
					failed.Add(1)
					continue
				}
				mu.Lock()
				lat = append(lat, s.wall)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return lat, int(failed.Load())
}

// writeThrottled is the report's section on throttling.
func (rep *report) writeThrottled(w func(string, ...any)) {
	t := rep.throttled
	if t == nil {
		return
	}
	w("## Under throttling\n\nThe deep SaaS tree (%s) at breadth %d, %d operations %d at a time, through a fault injector in the SDK's HTTP transport that answers every %s DynamoDB call the way DynamoDB throttles (HTTP 400, `ProvisionedThroughputExceededException`) without sending it. The SDK retries with capped, jittered backoff and no client-side retry quota (`repository/retry.go`). %d of %d calls were throttled.\n\n",
		deepOps[0].name, t.breadth, t.ops, t.concurrency, ordinal(t.every), t.throttled, t.calls)
	w("| DynamoDB | failed operations | p50 ms | p99 ms |\n|---|---|---|---|\n")
	for i, label := range []string{"no throttling", fmt.Sprintf("every %s call throttled", ordinal(t.every))} {
		w("| %s | %d of %d | %s | %s |\n", label, t.failures[i], t.ops, ms(t.p50[i]), ms(t.p99[i]))
	}
	w("\n")
}

func ordinal(n int) string {
	switch n {
	case 2:
		return "second"
	case 3:
		return "third"
	}
	return fmt.Sprintf("%dth", n)
}
