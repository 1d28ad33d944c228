// Command bench measures the API against its physical floor and against per-parent resolution
// (docs/benchmarks.md). It seeds one table on DynamoDB Local, serves the real HTTP handler on a
// loopback listener and runs a fixed suite: one operation per access pattern of AP1–AP20 and AP30, and five
// deep trees (one per domain, the catalog's and the warehouses' staff) at breadth 1, 10 and 50, each four ways —
// batched (production), per-parent (loaders/perparent), the direct floor (repository/benchfloor)
// and the replay floor (the batched way's own DynamoDB requests sent again with raw HTTP,
// replay.go). It writes the report and a plot of p50 latency against breadth.
//
//	make bench                  (BENCH_QUICK=1 make bench for a short run)
//	go run ./cmd/bench -cpuprofile cpu.out -memprofile mem.out   (profile the batched deep trees)
//	go run ./cmd/bench -only single                              (the single operations alone)
//	go run ./cmd/bench -quick -breadths 1,10 -only deep          (the deep trees alone)
//	go run ./cmd/bench -quick -breadths 10,50 -only defer        (first and last payload, @defer or not)
//	go run ./cmd/bench -only defer -section                      (the same, its section of docs/benchmarks.md rewritten)
//	go run ./cmd/bench -only deltasync -section                  (the change log's section of docs/benchmarks.md rewritten)
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

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/store"
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
	profileOp    string // "" for all the deep operations
	profileFloor bool   // profile the direct floor's reads instead of the batched way's
	only         string // "" for the whole suite, onlySingle or onlyFleet for one section alone
	section      bool   // with -only defer or deltasync: replace its section of out instead of printing it
	redis        string // the Redis of the fleet's section ("" leaves it out)
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
	flag.StringVar(&cfg.profileOp, "profileop", "", "with -cpuprofile: profile only this deep operation (saas, hr, commerce, catalog or staff)")
	flag.BoolVar(&cfg.profileFloor, "profilefloor", false, "with -cpuprofile: profile the direct floor's reads (the SDK alone) instead of the batched way")
	flag.StringVar(&cfg.only, "only", "", "run only this section: "+onlySingle+" (one operation per access pattern: prints its table and the lookup target, writes no report), "+onlyDeep+" (the deep trees, every way at every breadth: prints their targets and section, writes no report), "+onlyBurst+" (100 subscribers while another writer imports 1,000 tickets: prints its table), "+onlyLifecycle+" (the corrections, removals and the sweep: prints their section, writes no report), "+onlyDefer+" (the SaaS tree with and without @defer: time to the first and to the last payload; prints its section, writes no report), "+onlyFleet+" (three instances on Redis: prints its section, writes no report) or "+onlyDeltaSync+" (the change log: write → appended, its write capacity per change and storage per retention, a replay of 10,000 changes: prints its section, writes no report)")
	flag.BoolVar(&cfg.section, "section", false, "with -only "+onlyDefer+" or "+onlyDeltaSync+": replace that section of the report (-out) in place, instead of printing it")
	flag.StringVar(&cfg.redis, "redis", os.Getenv("TEST_REDIS_URL"), "Redis URL for the fleet's section (default: the one scripts/with-dynamodb-local.sh starts); empty leaves the section out")
	flag.Parse()
	if (cfg.profileOp != "" || cfg.profileFloor) && cfg.cpuProfile == "" {
		log.Fatalf("bench: -profileop and -profilefloor need -cpuprofile")
	}
	if cfg.only != "" && cfg.only != onlySingle && cfg.only != onlyDeep && cfg.only != onlyLifecycle && cfg.only != onlyBurst && cfg.only != onlyFleet && cfg.only != onlyDefer && cfg.only != onlyDeltaSync {
		log.Fatalf("bench: -only %q: the sections it runs alone are %s, %s, %s, %s, %s, %s and %s", cfg.only, onlySingle, onlyDeep, onlyBurst, onlyLifecycle, onlyDefer, onlyFleet, onlyDeltaSync)
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
//
// apart puts the table in a database of DynamoDB Local of its own (LocalDatabase), for the
// delta-sync section, which writes 20,000 items to its stream: DynamoDB Local slows every stream
// write and poll of a database down with the stream records its earlier tables left behind, so
// that after the suite's tables the section ran a hundred times slower than on its own. Every
// client of such a table must be given the same database (base.LocalDatabase).
func openRepos(ctx context.Context, latency time.Duration, apart bool) (measured, seeding *store.Store, baseCfg repository.Config, drop func(), err error) {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		return nil, nil, repository.Config{}, nil, fmt.Errorf("AWS_ENDPOINT_URL_DYNAMODB is not set: run `make bench`, which starts DynamoDB Local")
	}
	table := fmt.Sprintf("bench_%d_%d", os.Getpid(), time.Now().UnixNano())
	// The endpoint is given explicitly, as cmd/server does: the SDK takes DynamoDB's from the
	// environment by itself, but not DynamoDB Streams' (repository/client_streams.go).
	base := repository.Config{Table: table, Endpoint: os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"), CursorSecret: []byte("bench-cursor-secret-0123456789abcdef")}
	if apart {
		base.LocalDatabase = table
	}
	if seeding, err = store.New(ctx, base); err != nil {
		return nil, nil, repository.Config{}, nil, err
	}
	if err = seeding.CreateTable(ctx, time.Minute); err != nil {
		return nil, nil, repository.Config{}, nil, err
	}
	if measured, err = store.New(ctx, withLatency(base, latency)); err != nil {
		return nil, nil, repository.Config{}, nil, err
	}
	return measured, seeding, base, func() { _ = seeding.DeleteTable(context.Background()) }, nil
}

// standalone are the sections -only runs on a table of their own, without the bench's dataset.
var standalone = map[string]func(context.Context, config) error{
	onlyBurst:     func(ctx context.Context, _ config) error { return runBurst(ctx) },
	onlyDeltaSync: runDeltaSync,
}

// run seeds the dataset and runs the suite, or the one section cfg.only names.
func run(ctx context.Context, cfg config) error {
	if alone, ok := standalone[cfg.only]; ok {
		return alone(ctx, cfg)
	}
	started := time.Now()
	b, err := openBench(ctx, cfg)
	if err != nil {
		return err
	}
	defer b.close()
	log.Printf("seeded in %v", time.Since(started).Round(time.Millisecond))
	if cfg.cpuProfile != "" {
		return profile(ctx, cfg, b)
	}
	rep := &report{cfg: cfg, d: b.d, shards: repository.DefaultOrderStatusShards, deep: map[string]map[int]map[string]result{}}
	if section, ok := sections[cfg.only]; ok {
		return section(ctx, b, rep)
	}
	for _, measure := range b.suite() {
		if err := measure(ctx, rep); err != nil {
			return err
		}
	}
	rep.elapsed = time.Since(started)
	if err := rep.write(); err != nil {
		return err
	}
	log.Printf("wrote %s and %s in %v", cfg.out, cfg.plot, time.Since(started).Round(time.Second))
	return nil
}

// sections are the sections -only runs alone on the bench's dataset: each prints what it measured
// and writes no report.
var sections = map[string]func(context.Context, *bench, *report) error{
	onlyLifecycle: printLifecycle,
	onlyFleet:     printFleet,
	onlyDeep:      printDeep,
	onlyDefer:     func(ctx context.Context, b *bench, _ *report) error { return printDeferred(ctx, b) },
	onlySingle:    printSingle,
}

// printSingle measures the single operations and prints their table and the lookup target.
func printSingle(ctx context.Context, b *bench, rep *report) (err error) {
	if rep.single, err = b.measureSingle(ctx, rep.shards); err != nil {
		return err
	}
	fmt.Print(singleTable(rep.single), "\n| target | result | figures |\n|---|---|---|\n", lookupTargetRow(rep.single))
	return nil
}

// suite is the whole suite, in order, each section filling its part of the report.
func (b *bench) suite() []func(context.Context, *report) error {
	return []func(context.Context, *report) error{
		func(ctx context.Context, rep *report) (err error) {
			rep.single, err = b.measureSingle(ctx, rep.shards)
			return err
		},
		b.measureDeep,
		func(ctx context.Context, rep *report) (err error) {
			rep.deferred, err = b.measureDeferred(ctx)
			return err
		},
		b.measureRest,
		// Last: the writes add to the collections the reads above measured.
		b.measureCountedTrees,
		b.measureWrites,
		b.measureLifecycle,
		b.measureSubscriptions,
		func(ctx context.Context, rep *report) (err error) {
			org := b.d.orgs[0]
			rep.burst, err = measureBurst(ctx, b.seeder, org, b.d.users[org.ID][0])
			return err
		},
		func(ctx context.Context, rep *report) (err error) {
			rep.delta, err = measureDeltaSyncAlone(ctx)
			return err
		},
		b.measureFleet,
	}
}

// withLatency is c with latency d added to every DynamoDB request, outside any transport wrapper
// c has (the modelled network distance: repotest.Latency).
func withLatency(c repository.Config, d time.Duration) repository.Config {
	c.WrapTransport = repotest.Chain(repotest.Latency(d, 0), c.WrapTransport)
	return c
}
