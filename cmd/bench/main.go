// Command bench measures the API against its physical floor and against per-parent resolution
// (docs/benchmarks.md). It seeds one table on DynamoDB Local, serves the real HTTP handler on a
// loopback listener and runs a fixed suite: one operation per access pattern AP1–AP20, and three
// deep trees at breadth 1, 10 and 50, each four ways — batched (production), per-parent
// (loaders/perparent), the direct floor (repository/benchfloor) and the replay floor (the
// batched way's own DynamoDB requests sent again with raw HTTP, replay.go). It writes the report
// and a plot of p50 latency against breadth.
//
//	make bench                  (BENCH_QUICK=1 make bench for a short run)
//	go run ./cmd/bench -cpuprofile cpu.out -memprofile mem.out   (profile the batched deep trees)
//
// It needs AWS_ENDPOINT_URL_DYNAMODB (make bench starts DynamoDB Local).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	"singletable/loaders"
	"singletable/loaders/perparent"
	"singletable/repository"
	"singletable/repository/benchfloor"
	"singletable/repository/repotest"
	"singletable/server"
)

// ways of running a deep operation.
const (
	wayBatched   = "batched"
	wayPerParent = "per-parent"
	wayFloor     = "direct floor"
	wayReplay    = "replay floor"
)

var ways = []string{wayBatched, wayPerParent, wayFloor, wayReplay}

type config struct {
	out, plot    string
	latency      time.Duration
	breadths     []int
	quick        bool
	cpuProfile   string
	memProfile   string
	profileFor   time.Duration
	profileOp    string // "" for all three deep operations
	waits        []time.Duration
	concurrency  []int
	budget       budget
	throughputAt int // the breadth at which deep operations are also measured under concurrency
}

func main() {
	log.SetFlags(0)
	var cfg config
	var breadths string
	flag.StringVar(&cfg.out, "out", "docs/benchmarks.md", "report file")
	flag.StringVar(&cfg.plot, "plot", "docs/benchmarks-p50.svg", "plot file (SVG)")
	flag.DurationVar(&cfg.latency, "latency", 2*time.Millisecond, "latency added to every DynamoDB request (repotest.Latency in the SDK's transport)")
	flag.StringVar(&breadths, "breadths", "1,10,50", "top-level breadths of the deep operations")
	flag.BoolVar(&cfg.quick, "quick", os.Getenv("BENCH_QUICK") != "", "fewer repetitions (BENCH_QUICK=1)")
	flag.StringVar(&cfg.cpuProfile, "cpuprofile", "", "profile the batched deep operations (CPU) into this file instead of running the suite")
	flag.StringVar(&cfg.memProfile, "memprofile", "", "with -cpuprofile: write an allocation profile too")
	flag.DurationVar(&cfg.profileFor, "profiletime", 15*time.Second, "how long to profile")
	flag.StringVar(&cfg.profileOp, "profileop", "", "with -cpuprofile: profile only this deep operation (saas, hr or commerce)")
	flag.Parse()
	if cfg.profileOp != "" && cfg.cpuProfile == "" {
		log.Fatalf("bench: -profileop needs -cpuprofile")
	}
	for _, f := range strings.Split(breadths, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || b < 1 {
			log.Fatalf("bench: bad -breadths %q", breadths)
		}
		cfg.breadths = append(cfg.breadths, b)
	}
	cfg.waits = []time.Duration{250 * time.Microsecond, time.Millisecond, 4 * time.Millisecond}
	cfg.concurrency = []int{1, 8, 32}
	cfg.throughputAt = 10
	cfg.budget = budget{latencyTime: 3 * time.Second, maxSamples: 300, minSamples: 20, throughputFor: 2 * time.Second}
	if cfg.quick {
		cfg.budget = budget{latencyTime: 400 * time.Millisecond, maxSamples: 40, minSamples: 5, throughputFor: 400 * time.Millisecond}
	}
	if err := run(context.Background(), cfg); err != nil {
		log.Fatalf("bench: %v", err)
	}
}

// openRepos creates the table and returns two repositories on it: one that adds the modelled
// network latency to every call (what is measured) and one without, to seed quickly, and the
// configuration of the second (without latency, which withLatency adds).
func openRepos(ctx context.Context, latency time.Duration) (measured, seeding *repository.Repo, baseCfg repository.Config, drop func(), err error) {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		return nil, nil, repository.Config{}, nil, fmt.Errorf("AWS_ENDPOINT_URL_DYNAMODB is not set: run `make bench`, which starts DynamoDB Local")
	}
	table := fmt.Sprintf("bench_%d_%d", os.Getpid(), time.Now().UnixNano())
	base := repository.Config{Table: table, CursorSecret: []byte("bench-cursor-secret-0123456789abcdef")}
	if seeding, err = repository.New(ctx, base); err != nil {
		return nil, nil, repository.Config{}, nil, err
	}
	if err = seeding.CreateTable(ctx, time.Minute); err != nil {
		return nil, nil, repository.Config{}, nil, err
	}
	if measured, err = repository.New(ctx, withLatency(base, latency)); err != nil {
		return nil, nil, repository.Config{}, nil, err
	}
	return measured, seeding, base, func() { _ = seeding.DeleteTable(context.Background()) }, nil
}

func run(ctx context.Context, cfg config) error {
	started := time.Now()
	repo, seeder, repoCfg, drop, err := openRepos(ctx, cfg.latency)
	if err != nil {
		return err
	}
	defer drop()
	maxB := 0
	for _, b := range cfg.breadths {
		maxB = max(maxB, b)
	}
	log.Printf("seeding breadth %d …", maxB)
	d, err := seed(ctx, seeder, maxB)
	if err != nil {
		return err
	}
	log.Printf("seeded in %v", time.Since(started).Round(time.Millisecond))

	if cfg.cpuProfile != "" {
		return profile(ctx, cfg, repo, d)
	}

	batched := newHTTPWay(repo, server.Config{})
	defer batched.close()
	perParent := newHTTPWay(repo, server.Config{Loaders: perparent.Options(), Planner: perparent.Planner{}})
	defer perParent.close()
	recording, err := newRecordingWay(ctx, repoCfg, cfg.latency)
	if err != nil {
		return err
	}
	defer recording.close()
	floor, err := benchfloor.Open(ctx, withLatency(repoCfg, cfg.latency))
	if err != nil {
		return err
	}
	rep := &report{cfg: cfg, shards: repository.DefaultOrderStatusShards, deep: map[string]map[int]map[string]result{}}

	for _, o := range singleOps {
		log.Printf("%v", o)
		r, err := measure(ctx, batched.runner(o.query, o.vars(d, maxB)), cfg.budget, cfg.concurrency)
		if err != nil {
			return fmt.Errorf("%v: %w", o, err)
		}
		rep.single = append(rep.single, singleResult{op: o, min: o.plan(d, maxB, rep.shards), res: r})
	}
	for _, o := range deepOps {
		rep.deep[o.id] = map[int]map[string]result{}
		for _, b := range cfg.breadths {
			rep.deep[o.id][b] = map[string]result{}
			conc := []int{1}
			if b == cfg.throughputAt {
				conc = cfg.concurrency
			}
			for _, way := range ways {
				log.Printf("%v breadth %d %s", o, b, way)
				var fn runner
				switch way {
				case wayBatched:
					fn = batched.runner(o.query, o.vars(d, b))
				case wayPerParent:
					fn = perParent.runner(o.query, o.vars(d, b))
				case wayFloor:
					fn = floorRunner(func(ctx context.Context) (benchfloor.Result, error) { return o.floor(ctx, floor, d, b) })
				case wayReplay:
					rp, err := recording.replayOf(ctx, o.query, o.vars(d, b), cfg.latency)
					if err != nil {
						return fmt.Errorf("%v breadth %d: record: %w", o, b, err)
					}
					fn = rp.runner()
				}
				bud := cfg.budget
				if way == wayPerParent && b >= 50 {
					// Hundreds of calls per operation: fewer samples, the same minimum.
					bud.minSamples = max(3, bud.minSamples/4)
				}
				r, err := measure(ctx, fn, bud, conc)
				if err != nil {
					return fmt.Errorf("%v breadth %d %s: %w", o, b, way, err)
				}
				rep.deep[o.id][b][way] = r
			}
		}
	}
	if cfg.latency > 0 && maxB >= cfg.throughputAt {
		if rep.zero, err = measureZeroLatency(ctx, cfg, seeder, repoCfg, d); err != nil {
			return err
		}
	}
	// The dataloader wait, measured on the HR tree: its lookups come in several dependent
	// levels, so the window is paid several times.
	for _, w := range cfg.waits {
		o := deepOps[1]
		way := newHTTPWay(repo, server.Config{Loaders: loaders.Options{Wait: w}})
		log.Printf("wait %v: %v breadth %d", w, o, cfg.throughputAt)
		r, err := measure(ctx, way.runner(o.query, o.vars(d, cfg.throughputAt)), cfg.budget, []int{1, 32})
		way.close()
		if err != nil {
			return err
		}
		rep.waits = append(rep.waits, waitResult{wait: w, res: r, min: o.plan(d, cfg.throughputAt, rep.shards)})
	}
	tb := min(cfg.throughputAt, maxB)
	log.Printf("throttling: %v breadth %d", deepOps[0], tb)
	tr, err := measureThrottled(ctx, repoCfg, cfg.latency, d, tb, 200, 8)
	if err != nil {
		return err
	}
	rep.throttled = &tr
	rep.d = d
	rep.elapsed = time.Since(started)
	if err := rep.write(); err != nil {
		return err
	}
	log.Printf("wrote %s and %s in %v", cfg.out, cfg.plot, time.Since(started).Round(time.Second))
	return nil
}

// withLatency is c with latency d added to every DynamoDB request, outside any transport wrapper
// c has (the modelled network distance: repotest.Latency).
func withLatency(c repository.Config, d time.Duration) repository.Config {
	c.WrapTransport = repotest.Chain(repotest.Latency(d, 0), c.WrapTransport)
	return c
}
