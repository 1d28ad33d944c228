package repository

import (
	"strings"
	"testing"
	"time"
)

func TestIDsSortByTimeAndRangeBoundsHold(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ids := NewIDSource()
	var prev string
	for i := range 5 {
		at := t0.Add(time.Duration(i) * time.Millisecond)
		id, err := ids.NewID(at)
		if err != nil {
			t.Fatal(err)
		}
		if !ValidID(id) {
			t.Fatalf("newID gave an invalid id %q", id)
		}
		if id <= prev {
			t.Fatalf("ids not increasing: %q after %q", id, prev)
		}
		if !(LowestIDAt(at) <= id && id <= HighestIDAt(at)) {
			t.Fatalf("id %q outside the bounds of its millisecond", id)
		}
		if !idTime(id).Equal(at) {
			t.Fatalf("idTime = %v, want %v", idTime(id), at)
		}
		prev = id
	}
	// Within one millisecond, ids still increase (monotonic entropy).
	a, _ := ids.NewID(t0)
	b, _ := ids.NewID(t0)
	if !(a < b) {
		t.Fatalf("ids of one millisecond not increasing: %q, %q", a, b)
	}
}

func TestValidIDAcceptsOnlyTheCanonicalSpelling(t *testing.T) {
	id, _ := NewIDSource().NewID(time.Now())
	for _, bad := range []string{"", "x", id + "0", "0" + id[1:] + "#", strings.ToLower(id), "80000000000000000000000000"} {
		if ValidID(bad) {
			t.Errorf("validID(%q) = true", bad)
		}
	}
	if !ValidID(id) {
		t.Errorf("validID(%q) = false", id)
	}
}

func FuzzValidID(f *testing.F) {
	f.Add("01J00000000000000000000001")
	f.Add("01j00000000000000000000001")
	f.Fuzz(func(t *testing.T, s string) {
		if ValidID(s) {
			// A valid id is safe inside a key: no delimiter, no escape character, fixed length.
			if len(s) != 26 || strings.ContainsAny(s, "#%") {
				t.Fatalf("validID accepted %q", s)
			}
		}
	})
}
