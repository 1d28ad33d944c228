package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The minimum of an operation is the API's call budget applied to its access patterns on the data
// actually stored: one Query per item collection (or index partition) the operation reads, and
// per dependent level of key lookups ⌈unique keys not read yet / 100⌉ BatchGetItem. The
// benchmark derives it from the seeded dataset (which parents, which children, who manages whom),
// never from a typed-in number, and compares every way's calls with it.

// level is one step of an operation's minimal plan. Levels with the same round need only inputs
// known before that round, so their calls can run at the same time.
type level struct {
	round   int
	queries int      // item collections or index partitions read (one Query each)
	keys    []string // items looked up by key
	primed  bool     // keys read by an earlier Query: free, and free to look up later
}

// minimum is what a plan costs at least.
type minimum struct {
	calls  map[string]int // by DynamoDB operation
	rounds int            // dependent rounds: the operation's stages
}

// planMinimum counts a plan's calls. A key looked up twice, in one level or in two, costs once.
func planMinimum(levels ...level) minimum {
	m := minimum{calls: map[string]int{}}
	read := map[string]bool{}
	rounds := map[int]bool{}
	for _, l := range levels {
		var fresh int
		if l.primed {
			for _, k := range l.keys {
				read[k] = true
			}
			continue
		}
		for _, k := range l.keys {
			if !read[k] {
				read[k] = true
				fresh++
			}
		}
		m.calls["Query"] += l.queries
		m.calls["BatchGetItem"] += (fresh + 99) / 100
		if l.queries > 0 || fresh > 0 {
			rounds[l.round] = true
		}
	}
	for op, n := range m.calls {
		if n == 0 {
			delete(m.calls, op)
		}
	}
	m.rounds = len(rounds)
	return m
}

// formatCalls prints calls by operation in a fixed order: "12 Query + 3 BatchGetItem".
func formatCalls(calls map[string]int) string {
	if len(calls) == 0 {
		return "0"
	}
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(calls)) {
		if calls[op] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", calls[op], op))
		}
	}
	return strings.Join(parts, " + ")
}

func sameCalls(a, b map[string]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

// Key names for plans; only their uniqueness matters.
func k(kind, id string) string { return kind + "/" + id }
