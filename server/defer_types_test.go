package server

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"singletable/graph"
)

// resolvedApart names exactly the fields that the generated executor resolves apart from their
// object (out.ResolveConcurrently, the ones it can defer), root types aside: a field read from its
// object taken for deferred would lose a null that is its value; a deferred one taken for read
// from its object would leave its placeholder null behind.
func TestResolvedApartIsWhatTheExecutorDefers(t *testing.T) {
	src, err := os.ReadFile("../graph/generated.go")
	if err != nil {
		t.Fatal(err)
	}
	object := regexp.MustCompile(`^func \(ec \*executionContext\) _(\w+)\(ctx context\.Context, sel ast\.SelectionSet`)
	field := regexp.MustCompile(`^\s*case "(\w+)":$`)
	var want []string
	typ, name := "", ""
	for line := range strings.Lines(string(src)) {
		line = strings.TrimRight(line, "\n")
		if m := object.FindStringSubmatch(line); m != nil {
			typ = m[1]
		} else if m := field.FindStringSubmatch(line); m != nil {
			name = m[1]
		} else if strings.Contains(line, "out.ResolveConcurrently(") {
			want = append(want, typ+"."+name)
		}
	}
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	var got []string
	for f := range resolvedApart(schema) {
		if typ, _, _ := strings.Cut(f, "."); typ != "Query" && typ != "Mutation" && typ != "Subscription" {
			got = append(got, f)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("resolved apart\n%v\nthe executor defers\n%v", got, want)
	}
}
