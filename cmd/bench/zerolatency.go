package main

import (
	"context"
	"fmt"
	"log"
	"strings"

	"singletable/repository"
	"singletable/repository/benchfloor"
	"singletable/repository/store"
	"singletable/server"
)

// The zero-latency pass measures the deep operations at breadth cfg.throughputAt once more
// with no latency added to DynamoDB calls: batched, the direct floor and the replay floor. With the modelled
// network hop gone, what is left of the server's time over the replay is its own work (GraphQL,
// loaders, the SDK) and the dependent rounds it takes: the sharpest view of both.

// zeroWays are the ways measured at zero added latency.
var zeroWays = []string{wayBatched, wayFloor, wayReplay}

// measureZeroLatency runs the pass on repo, a repository of the same table without added latency.
func measureZeroLatency(ctx context.Context, cfg config, repo *store.Store, repoCfg repository.Config, d *dataset) (map[string]map[string]result, error) {
	batched := newHTTPWay(repo, server.Config{})
	defer batched.close()
	recording, err := newRecordingWay(ctx, repoCfg, 0)
	if err != nil {
		return nil, err
	}
	defer recording.close()
	floor, err := benchfloor.Open(ctx, repoCfg)
	if err != nil {
		return nil, err
	}
	b := cfg.throughputAt
	out := map[string]map[string]result{}
	for _, o := range deepOps {
		out[o.id] = map[string]result{}
		for _, way := range zeroWays {
			log.Printf("zero added latency: %v breadth %d %s", o, b, way)
			fn := batched.runner(o.query, o.vars(d, b))
			switch way {
			case wayFloor:
				fn = floorRunner(func(ctx context.Context) (benchfloor.Result, error) { return o.floor(ctx, floor, d, b) })
			case wayReplay:
				rp, err := recording.replayOf(ctx, o.query, o.vars(d, b), 0)
				if err != nil {
					return nil, fmt.Errorf("%v breadth %d: record: %w", o, b, err)
				}
				fn = rp.runner()
			}
			r, err := measure(ctx, fn, cfg.budget, []int{1})
			if err != nil {
				return nil, fmt.Errorf("zero added latency: %v breadth %d %s: %w", o, b, way, err)
			}
			out[o.id][way] = r
		}
	}
	return out, nil
}

// allocBaseline are the allocations per operation of the batched deep operations at breadth 10
// before the second reshaping (node descriptors, a plan per level) and the dependency upgrade
// (docs/benchmarks.md of commit a5130f6, the same method): the baseline of the allocation
// target, which asks for 15 % fewer.
var allocBaseline = map[string]float64{"saas": 61327, "hr": 24836, "commerce": 17016}

// writeZeroLatencyTargets writes the targets rows measured at zero added latency and the
// allocation target.
func (rep *report) writeZeroLatencyTargets(w func(string, ...any)) {
	b := rep.cfg.throughputAt
	if rep.zero != nil {
		var rounds []string
		roundsOK := true
		for _, o := range deepOps {
			r := rep.zero[o.id][wayBatched]
			stages := o.plan(rep.d, b, rep.shards).rounds
			roundsOK = roundsOK && r.roundsTypical == stages
			// Rounds are read from call timing. The direct floor starts every call as soon as its
			// inputs are known and has exactly the stages' dependencies: where it shows more
			// rounds too, calls of one stage ended before others of it started.
			rounds = append(rounds, fmt.Sprintf("%s %s for %d stages (direct floor %s)", o.id, roundsCell(r), stages, roundsCell(rep.zero[o.id][wayFloor])))
		}
		w("| dependent rounds equal stages at zero added latency (typical sample), deep operations at breadth %d | %s | %s |\n", b, metMark(roundsOK), strings.Join(rounds, "; "))
	}
	var figs []string
	ok := true
	for _, o := range deepOps {
		r, found := rep.deep[o.id][10][wayBatched]
		base := allocBaseline[o.id]
		if !found || base == 0 {
			continue
		}
		ok = ok && r.allocsPerOp <= base*0.85
		figs = append(figs, fmt.Sprintf("%s %.0f vs %.0f (%+.0f%%)", o.id, r.allocsPerOp, base, 100*(r.allocsPerOp/base-1)))
	}
	if len(figs) > 0 {
		w("| allocations per operation of the batched deep operations at breadth 10 down 15 %% from before the second reshaping | %s | %s (the profile's split by owner: section \"Allocations\") |\n", metMark(ok), strings.Join(figs, "; "))
	}
}

// writeZeroLatency writes the section with the zero-latency pass.
func (rep *report) writeZeroLatency(w func(string, ...any)) {
	if rep.zero == nil {
		return
	}
	b := rep.cfg.throughputAt
	w("## At zero added latency\n\nThe deep operations at breadth %d once more, with no latency added to DynamoDB calls: the batched handler, the direct floor and the replay of the handler's own DynamoDB requests. What separates them is the server's own work — gqlgen's execution, the loaders, the SDK's middleware and JSON decoding — on two cores that DynamoDB Local shares.\n\n", b)
	w("| operation | way | calls | rounds | stages | p50 ms | p95 ms | server p50 ms | allocs/op | CPU ms/op | outside DynamoDB p50 ms |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, o := range deepOps {
		stages := o.plan(rep.d, b, rep.shards).rounds
		for _, way := range zeroWays {
			r := rep.zero[o.id][way]
			w("| %s | %s | %s | %s | %d | %s | %s | %s | %.0f | %s | %s |\n", o.id, way, callsCell(r), roundsCell(r), stages,
				ms(r.p50), ms(r.p95), ms(r.serverP50), r.allocsPerOp, ms(r.cpuPerOp), ms(r.outsideP50))
		}
	}
	w("\n")
}
