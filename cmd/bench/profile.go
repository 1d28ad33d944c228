package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"singletable/repository/benchfloor"
	"singletable/server"
)

// profile runs the batched deep operations (or the one -profileop names) at the throughput breadth for
// cfg.profileFor under the CPU profiler, then writes the allocation profile. Inspect with
// `go tool pprof -top cpu.out` (see docs/benchmarks.md, "Profile"). With -profileway floor it runs
// the same reads the direct floor's way instead, for what the SDK alone allocates.
func profile(ctx context.Context, cfg config, b *bench) error {
	way := newHTTPWay(b.repo, server.Config{})
	defer way.close()
	runs := profiledRuns(cfg, b, way)
	if len(runs) == 0 {
		return fmt.Errorf("-profileop %q: no such deep operation", cfg.profileOp)
	}
	for _, r := range runs { // warm-up
		if _, err := r(ctx); err != nil {
			return err
		}
	}
	f, err := os.Create(cfg.cpuProfile)
	if err != nil {
		return err
	}
	defer f.Close()
	if cfg.memProfile != "" {
		// A fine allocation profile costs CPU (a stack walk per sample): only when asked for.
		runtime.MemProfileRate = 4096
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	n, err := runEightAtATime(ctx, runs, cfg.profileFor)
	if err != nil {
		pprof.StopCPUProfile()
		return err
	}
	pprof.StopCPUProfile()
	runtime.ReadMemStats(&ms1)
	log.Printf("profiled %d operations in %v: %.0f allocations and %.0f bytes per operation",
		n, time.Since(start).Round(time.Millisecond), float64(ms1.Mallocs-ms0.Mallocs)/float64(n), float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(n))
	if cfg.memProfile != "" {
		// The allocation profile stops at the last garbage collection: one now takes in every
		// operation profiled.
		runtime.GC()
		mf, err := os.Create(cfg.memProfile)
		if err != nil {
			return err
		}
		defer mf.Close()
		if err := pprof.Lookup("allocs").WriteTo(mf, 0); err != nil {
			return fmt.Errorf("allocation profile: %w", err)
		}
	}
	return nil
}

// profiledRuns are the deep operations -profileop names (all without it), through the API or,
// with -profilefloor, the direct floor's reads.
func profiledRuns(cfg config, b *bench, way *httpWay) []runner {
	var runs []runner
	for _, o := range deepOps {
		if cfg.profileOp != "" && cfg.profileOp != o.id {
			continue
		}
		if cfg.profileFloor {
			runs = append(runs, floorRunner(func(ctx context.Context) (benchfloor.Result, error) {
				return o.floor(ctx, b.floor, b.d, cfg.throughputAt)
			}))
			continue
		}
		runs = append(runs, way.runner(o.query, o.vars(b.d, cfg.throughputAt)))
	}
	return runs
}

// runEightAtATime runs the operations of runs in turn, eight at a time as a loaded server would
// run them, for about d, and returns how many ran.
func runEightAtATime(ctx context.Context, runs []runner, d time.Duration) (int, error) {
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		errs := make(chan error, 8)
		for i := range 8 {
			go func() {
				_, err := runs[(n+i)%len(runs)](ctx)
				errs <- err
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				return n, err
			}
		}
		n += 8
	}
	return n, nil
}
