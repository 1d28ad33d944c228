package graph_test

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/vektah/gqlparser/v2/formatter"

	"singletable/graph"
)

var update = flag.Bool("update", false, "rewrite testdata/schema.graphql from the current schema")

// TestSchemaSnapshot keeps the public schema in a golden file, so that every change to the API a
// frontend sees shows up in review as a diff of testdata/schema.graphql. After an intended change:
//
//	go test ./graph -run TestSchemaSnapshot -update
func TestSchemaSnapshot(t *testing.T) {
	var buf bytes.Buffer
	formatter.NewFormatter(&buf, formatter.WithIndent("  ")).FormatSchema(graph.NewExecutableSchema(graph.Config{}).Schema())
	const golden = "testdata/schema.graphql"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := unifiedDiff(golden, "current schema", string(want), buf.String(), 3); d != "" {
		t.Fatalf("the schema differs from %s; if the change is intended, run: go test ./graph -run TestSchemaSnapshot -update\n\n%s", golden, d)
	}
}
