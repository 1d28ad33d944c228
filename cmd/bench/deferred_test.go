package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The defer section says "sooner", "later" or "at the same time" by the sign of the difference,
// never a negative number of milliseconds later.
func TestRelativeTimeBySign(t *testing.T) {
	for d, want := range map[time.Duration]string{
		1500 * time.Microsecond:  "1.50 ms later",
		-1500 * time.Microsecond: "1.50 ms sooner",
		0:                        "at the same time",
		4 * time.Microsecond:     "at the same time",
		-4 * time.Microsecond:    "at the same time",
		-12 * time.Millisecond:   "12.00 ms sooner",
	} {
		if got := relativeTime(d); got != want {
			t.Fatalf("relativeTime(%v) = %q, want %q", d, got, want)
		}
	}
	whole := deferResult{breadth: 10, name: "whole", first: []time.Duration{20 * time.Millisecond}, last: []time.Duration{20 * time.Millisecond}}
	deferred := deferResult{breadth: 10, name: "deferred", first: []time.Duration{5 * time.Millisecond}, last: []time.Duration{18 * time.Millisecond}}
	var out strings.Builder
	writeDeferred(func(f string, a ...any) { fmt.Fprintf(&out, f, a...) }, []deferResult{whole, deferred}, 0)
	if s := out.String(); !strings.Contains(s, "the first payload comes 15.00 ms sooner (p50), the last 2.00 ms sooner (p50") {
		t.Fatalf("section:\n%s", s)
	}
}
