package main

import (
	"context"
	"fmt"
	"log"
	"strings"

	"singletable/loaders"
	"singletable/loaders/perparent"
	"singletable/repository"
	"singletable/repository/benchfloor"
	"singletable/repository/store"
	"singletable/server"
)

// onlySingle is the -only value that runs the single operations alone.
const onlySingle = "single"

// onlyDeep is the -only value that runs the deep operations alone: a short check of a tree's
// calls and latency without the rest of the suite (nor a report that would overwrite the full
// one).
const onlyDeep = "deep"

// bench is one run: the seeded table, its repositories and the ways of running an operation.
type bench struct {
	cfg       config
	repo      *store.Store // with the added latency: what is measured
	seeder    *store.Store // without: to seed quickly, and for the zero-latency pass
	repoCfg   repository.Config
	d         *dataset
	maxB      int
	batched   *httpWay
	perParent *httpWay
	recording *recordingWay
	floor     *benchfloor.Client
	drop      func()
}

// openBench creates and seeds the table for the largest breadth and opens every way.
func openBench(ctx context.Context, cfg config) (*bench, error) {
	b := &bench{cfg: cfg}
	var err error
	if b.repo, b.seeder, b.repoCfg, b.drop, err = openRepos(ctx, cfg.latency, false); err != nil {
		return nil, err
	}
	for _, br := range cfg.breadths {
		b.maxB = max(b.maxB, br)
	}
	log.Printf("seeding breadth %d …", b.maxB)
	if b.d, err = seed(ctx, b.seeder, b.maxB); err != nil {
		b.drop()
		return nil, err
	}
	b.batched = newHTTPWay(b.repo, server.Config{})
	b.perParent = newHTTPWay(b.repo, server.Config{Loaders: perparent.Options(), Planner: perparent.Planner{}})
	if b.recording, err = newRecordingWay(ctx, b.repoCfg, cfg.latency); err == nil {
		b.floor, err = benchfloor.Open(ctx, withLatency(b.repoCfg, cfg.latency))
	}
	if err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *bench) close() {
	b.batched.close()
	b.perParent.close()
	if b.recording != nil {
		b.recording.close()
	}
	b.drop()
}

// measureSingle measures one operation per access pattern, batched.
func (b *bench) measureSingle(ctx context.Context, shards int) ([]singleResult, error) {
	var out []singleResult
	for _, o := range singleOps {
		log.Printf("%v", o)
		r, err := measure(ctx, b.batched.runner(o.query, o.vars(b.d, b.maxB)), b.cfg.budget, b.cfg.concurrency)
		if err != nil {
			return nil, fmt.Errorf("%v: %w", o, err)
		}
		out = append(out, singleResult{op: o, min: o.plan(b.d, b.maxB, shards), res: r})
	}
	return out, nil
}

// measureDeep measures the deep operations, every way at every breadth.
func (b *bench) measureDeep(ctx context.Context, rep *report) error {
	for _, o := range deepOps {
		rep.deep[o.id] = map[int]map[string]result{}
		for _, br := range b.cfg.breadths {
			rep.deep[o.id][br] = map[string]result{}
			conc := []int{1}
			if br == b.cfg.throughputAt {
				conc = b.cfg.concurrency
			}
			for _, way := range ways {
				log.Printf("%v breadth %d %s", o, br, way)
				fn, err := b.runner(ctx, o, br, way)
				if err != nil {
					return err
				}
				bud := b.cfg.budget
				if way == wayPerParent && br >= 50 {
					// Hundreds of calls per operation: fewer samples, the same minimum.
					bud.minSamples = max(3, bud.minSamples/4)
				}
				if rep.deep[o.id][br][way], err = measure(ctx, fn, bud, conc); err != nil {
					return fmt.Errorf("%v breadth %d %s: %w", o, br, way, err)
				}
			}
		}
	}
	return nil
}

// printDeep measures the deep operations and prints their targets rows and their section,
// writing no report.
func printDeep(ctx context.Context, b *bench, rep *report) error {
	if err := b.measureDeep(ctx, rep); err != nil {
		return err
	}
	var out strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&out, format, a...) }
	w("| target | result | figures |\n|---|---|---|\n")
	rep.writeCallsTarget(w)
	rep.writeRoundsTarget(w)
	rep.writeFloorTargets(w)
	w("\n")
	rep.writeDeep(w)
	fmt.Print(out.String())
	return nil
}

// runner runs deep operation o at breadth br one way.
func (b *bench) runner(ctx context.Context, o op, br int, way string) (runner, error) {
	switch way {
	case wayPerParent:
		return b.perParent.runner(o.query, o.vars(b.d, br)), nil
	case wayFloor:
		return floorRunner(func(ctx context.Context) (benchfloor.Result, error) { return o.floor(ctx, b.floor, b.d, br) }), nil
	case wayReplay:
		rp, err := b.recording.replayOf(ctx, o.query, o.vars(b.d, br), b.cfg.latency)
		if err != nil {
			return nil, fmt.Errorf("%v breadth %d: record: %w", o, br, err)
		}
		return rp.runner(), nil
	}
	return b.batched.runner(o.query, o.vars(b.d, br)), nil
}

// measureRest runs the zero-latency pass, the dataloader wait sweep and the throttled run.
func (b *bench) measureRest(ctx context.Context, rep *report) error {
	var err error
	if b.cfg.latency > 0 && b.maxB >= b.cfg.throughputAt {
		if rep.zero, err = measureZeroLatency(ctx, b.cfg, b.seeder, b.repoCfg, b.d); err != nil {
			return err
		}
	}
	// The dataloader wait, measured on the HR tree: its lookups come in several dependent
	// levels, so the window is paid several times.
	for _, w := range b.cfg.waits {
		o := deepOps[1]
		way := newHTTPWay(b.repo, server.Config{Loaders: loaders.Options{Wait: w}})
		log.Printf("wait %v: %v breadth %d", w, o, b.cfg.throughputAt)
		r, err := measure(ctx, way.runner(o.query, o.vars(b.d, b.cfg.throughputAt)), b.cfg.budget, []int{1, 32})
		way.close()
		if err != nil {
			return err
		}
		rep.waits = append(rep.waits, waitResult{wait: w, res: r, min: o.plan(b.d, b.cfg.throughputAt, rep.shards)})
	}
	tb := min(b.cfg.throughputAt, b.maxB)
	log.Printf("throttling: %v breadth %d", deepOps[0], tb)
	tr, err := measureThrottled(ctx, b.repoCfg, b.cfg.latency, b.d, tb, 200, 8)
	if err != nil {
		return err
	}
	rep.throttled = &tr
	return nil
}
