package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// doublingFragments is the document whose fragment F<n> expands to 2^n fields: each fragment
// spreads the previous one twice.
func doublingFragments(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{ organizations { edges { node { ...F%d } } } }\nfragment F0 on Organization { name }\n", n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "fragment F%d on Organization { ...F%d ...F%d }\n", i, i-1, i-1)
	}
	return b.String()
}

func nested(depth int) string {
	return strings.Repeat("{ node(id: \"x\") { ... on Employee { manager ", depth-1) + "{ name }" + strings.Repeat(" } } }", depth-1)
}

func TestCheckDocumentRefusesAtTheFirstBoundCrossed(t *testing.T) {
	l := Limits{}.withDefaults()
	aliases := func(n int) string {
		var b strings.Builder
		b.WriteString("{ ")
		for i := range n {
			fmt.Fprintf(&b, "a%d: organizations(first: 1) { edges { cursor } } ", i)
		}
		return b.String() + "}"
	}
	cases := []struct {
		name, doc, limit string
	}{
		{"a plain query", `{ organizations { edges { node { id name users { edges { node { name } } } } } } }`, ""},
		{"fragments used a few times", `{ a: organizations { ...C } b: organizations { ...C } } fragment C on OrganizationConnection { edges { node { id } } }`, ""},
		{"depth 15", strings.Repeat("{ a ", 14) + "{ b }" + strings.Repeat(" }", 14), ""},
		{"depth 16", strings.Repeat("{ a ", 15) + "{ b }" + strings.Repeat(" }", 15), "depth"},
		{"depth 60 through inline fragments", nested(60), "depth"},
		// The same field merges into one selection set 2^n times: the repeat bound trips at 11.
		{"doubling fragments n=20", doublingFragments(20), "fieldRepeats"},
		{"doubling fragments n=40", doublingFragments(40), "fieldRepeats"},
		{"5000 ids in a list", "{ organizations { edges { node { " + strings.Repeat("id ", 5000) + "} } } }", "fieldRepeats"},
		{"repeats through fragments", "{ __typename ...A ...B } fragment A on Query { " + strings.Repeat("__typename ", 5) + "} fragment B on Query { " + strings.Repeat("__typename ", 5) + "}", "fieldRepeats"},
		{"repeats inside an unused fragment", "{ __typename } fragment A on Query { " + strings.Repeat("__typename ", 11) + "}", "fieldRepeats"},
		{"100 aliases", aliases(100), ""},
		{"101 aliases", aliases(101), "aliases"},
		{"a cycle is left to validation", `{ organizations { ...A } } fragment A on OrganizationConnection { ...B } fragment B on OrganizationConnection { ...A }`, ""},
		{"an unknown fragment is left to validation", `{ organizations { ...Nope } }`, ""},
	}
	for _, c := range cases {
		doc, err := parser.ParseQuery(&ast.Source{Input: c.doc})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		gerr := checkDocument(doc, l)
		switch {
		case c.limit == "" && gerr != nil:
			t.Errorf("%s: refused: %v", c.name, gerr)
		case c.limit != "" && gerr == nil:
			t.Errorf("%s: accepted, want refused by %s", c.name, c.limit)
		case c.limit != "" && (gerr.Extensions["limit"] != c.limit || gerr.Extensions["code"] != "GRAPHQL_VALIDATION_FAILED" || gerr.Extensions["max"] == nil):
			t.Errorf("%s: refused with %v %v, want limit %s", c.name, gerr.Message, gerr.Extensions, c.limit)
		}
	}
}

// TestDoublingFragmentsCostOnlyTheBound: the walk counts fields while it expands fragments and
// stops at the first field past the bound, so its work is the bound, not 2^n. The repeat bound,
// which would stop these documents even sooner, is lifted to show the field bound on its own.
func TestDoublingFragmentsCostOnlyTheBound(t *testing.T) {
	l := Limits{Repeats: 1 << 30}.withDefaults()
	for _, n := range []int{20, 26, 40} {
		doc, err := parser.ParseQuery(&ast.Source{Input: doublingFragments(n)})
		if err != nil {
			t.Fatal(err)
		}
		w := newBoundsWalker(doc, l)
		gerr := w.document()
		if gerr == nil || gerr.Extensions["limit"] != "fields" {
			t.Fatalf("n=%d: %v", n, gerr)
		}
		if w.fields != l.Fields+1 {
			t.Fatalf("n=%d: walked %d fields, want exactly %d (the bound plus the one past it)", n, w.fields, l.Fields+1)
		}
	}
	// Just under the bound the document passes: 2^8 = 256 fields.
	doc, _ := parser.ParseQuery(&ast.Source{Input: doublingFragments(8)})
	if err := checkDocument(doc, l); err != nil {
		t.Fatalf("n=8: %v", err)
	}
}

// FuzzCheckDocument: whatever document parses, the bounds walk ends without panicking, and a
// document it accepts has no more fields than the bound once its fragments are expanded.
func FuzzCheckDocument(f *testing.F) {
	for _, s := range []string{doublingFragments(3), nested(4), `{ a: b c { ...F } } fragment F on T { d ...F }`, `query($x: Int = 3) { f(x: $x) @skip(if: true) { g } }`} {
		f.Add(s)
	}
	l := Limits{Depth: 6, Fields: 40, Aliases: 5, Repeats: 3}
	f.Fuzz(func(t *testing.T, q string) {
		doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: q}, 2000)
		if err != nil {
			return
		}
		w := newBoundsWalker(doc, l)
		if w.document() == nil && (w.fields > l.Fields || w.aliases > l.Aliases) {
			t.Fatalf("accepted %d fields, %d aliases", w.fields, w.aliases)
		}
	})
}
