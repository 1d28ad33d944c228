package graph_test

import (
	"fmt"
	"strings"
)

// unifiedDiff returns the line differences between want and got as a unified diff with context
// lines of context around each change ("-" lines only in want, "+" lines only in got), or "" when
// they are equal. The snapshot test prints it instead of the whole schema, so a reviewer sees
// what changed. It aligns the texts on a longest common subsequence of lines, which is plenty
// for a schema of a few hundred lines.
func unifiedDiff(wantName, gotName, want, got string, context int) string {
	if want == got {
		return ""
	}
	a, b := splitLines(want), splitLines(got)
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	// ops is the edit script: ' ' keeps a line, '-' drops a line of a, '+' adds a line of b.
	type op struct {
		kind byte
		line string
		ai   int // lines of a before this one
		bi   int // lines of b before this one
	}
	var ops []op
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], i, j})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i], i, j})
			i++
		default:
			ops = append(ops, op{'+', b[j], i, j})
			j++
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", wantName, gotName)
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		// A hunk: from context lines before this change to context lines after the last change
		// that is closer than 2×context to the previous one.
		start := max(k-context, 0)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			next := end
			for next < len(ops) && ops[next].kind == ' ' {
				next++
			}
			if next == len(ops) || next-end > 2*context {
				end = min(end+context, len(ops))
				break
			}
			end = next
		}
		var aLen, bLen int
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				aLen++
			}
			if o.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(ops[start].ai, aLen), hunkRange(ops[start].bi, bLen))
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.line)
			out.WriteByte('\n')
		}
		k = end
	}
	return out.String()
}

// hunkRange is a hunk header's "start,length" with 1-based lines, as diff -u writes it (an empty
// range names the line before it).
func hunkRange(before, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", before)
	}
	return fmt.Sprintf("%d,%d", before+1, n)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
