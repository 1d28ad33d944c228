package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"singletable/graph"
)

// Deferred fragment spreads are inlined before the operation runs, each copy with labels of its
// own, and the cached document is left as it was: spreads with @defer nested ten deep (2,046
// copies) are refused, eight deep (510) are rewritten, every label apart.
func TestDeferredFragmentsInlinedWithinBounds(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	doc := func(depth int) string {
		q := fmt.Sprintf(`query { node(id: "x") { ...F%d } } fragment F0 on Node { id }`, depth)
		for k := 1; k <= depth; k++ {
			q += fmt.Sprintf(" fragment F%d on Node { ...F%d @defer(label: \"f\") ...F%d @defer }", k, k-1, k-1)
		}
		return q
	}
	for depth, want := range map[int]bool{10: false, 8: true} {
		parsed, errs := gqlparser.LoadQueryWithRules(schema, doc(depth), nil)
		if errs != nil {
			t.Fatal(errs)
		}
		before := parsed.Fragments.ForName("F1").SelectionSet[0]
		oc := &graphql.OperationContext{Doc: parsed, Operation: parsed.Operations[0]}
		if got := deferredFragments(oc); got != want {
			t.Fatalf("%d deep: rewritten %v, want %v", depth, got, want)
		}
		if _, spread := before.(*ast.FragmentSpread); !spread || parsed.Fragments.ForName("F1").SelectionSet[0] != before {
			t.Fatalf("%d deep: the parsed document was changed", depth)
		}
		if !want {
			continue
		}
		labels := map[string]bool{}
		eachSelection(oc.Operation.SelectionSet, oc.Doc.Fragments, func(s ast.Selection) {
			if s, ok := s.(*ast.InlineFragment); ok {
				label := s.Directives.ForName("defer").Arguments.ForName("label").Value.Raw
				if labels[label] || !strings.HasPrefix(restoreLabel(label), "f") && restoreLabel(label) != "" {
					t.Fatalf("label %q twice, or not the operation's", label)
				}
				labels[label] = true
			}
		})
		if len(labels) != 510 {
			t.Fatalf("%d deferred fragments, want 510", len(labels))
		}
	}
}
