package graph_test

import (
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	lines := func(n int, change map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := change[i]; ok {
				if s != "" {
					b.WriteString(s + "\n")
				}
				continue
			}
			b.WriteString("line " + string(rune('a'+i-1)) + "\n")
		}
		return b.String()
	}
	cases := []struct {
		name      string
		want, got string
		diff      string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"one line changed in the middle", lines(9, nil), lines(9, map[int]string{5: "line E"}),
			"--- want\n+++ got\n@@ -2,7 +2,7 @@\n line b\n line c\n line d\n-line e\n+line E\n line f\n line g\n line h\n"},
		{"a line added at the end", "a\nb\n", "a\nb\nc\n",
			"--- want\n+++ got\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"},
		{"a line removed at the start", "a\nb\nc\n", "b\nc\n",
			"--- want\n+++ got\n@@ -1,3 +1,2 @@\n-a\n b\n c\n"},
		{"from nothing", "", "a\n",
			"--- want\n+++ got\n@@ -0,0 +1,1 @@\n+a\n"},
		{"two distant changes make two hunks", lines(20, map[int]string{2: "X"}), lines(20, map[int]string{18: ""}),
			"--- want\n+++ got\n@@ -1,5 +1,5 @@\n line a\n-X\n+line b\n line c\n line d\n line e\n" +
				"@@ -15,6 +15,5 @@\n line o\n line p\n line q\n-line r\n line s\n line t\n"},
		{"two close changes share a hunk", lines(10, map[int]string{3: "X"}), lines(10, map[int]string{6: "Y"}),
			"--- want\n+++ got\n@@ -1,9 +1,9 @@\n line a\n line b\n-X\n+line c\n line d\n line e\n-line f\n+Y\n line g\n line h\n line i\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := unifiedDiff("want", "got", c.want, c.got, 3); got != c.diff {
				t.Errorf("diff:\n%s\nwant:\n%s", got, c.diff)
			}
		})
	}
}

// The diff of two texts, applied to the first, gives the second: every kept and removed line is
// the first text's, in order, and every kept and added line the second's.
func TestUnifiedDiffReconstructsBothSides(t *testing.T) {
	want := "type A {\n  a: Int\n  b: Int\n}\n\ntype B {\n  c: Int\n}\n"
	got := "type A {\n  a: Int\n  z: String\n}\n\ntype B {\n  c: Int\n  d: Int\n}\n"
	d := unifiedDiff("want", "got", want, got, 100)
	var left, right []string
	for _, l := range strings.Split(strings.TrimSuffix(d, "\n"), "\n")[3:] {
		switch l[0] {
		case ' ':
			left, right = append(left, l[1:]), append(right, l[1:])
		case '-':
			left = append(left, l[1:])
		case '+':
			right = append(right, l[1:])
		}
	}
	if strings.Join(left, "\n")+"\n" != want || strings.Join(right, "\n")+"\n" != got {
		t.Fatalf("the diff does not reconstruct its sides:\n%s", d)
	}
}
