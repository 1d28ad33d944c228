package graph_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
)

// schemaEdit changes a copy of the snapshot's schema document (nil leaves it as it is).
type schemaEdit func(t *testing.T, doc *ast.SchemaDocument)

// TestSchemaCheck runs the breaking-change check that make test runs (scripts/schema-check.sh,
// graphql-inspector) on schemas derived from the current snapshot: it must fail a candidate that
// takes away what a client of the released schema may use, and pass one that only adds, deprecates
// or adds an enum value (a "dangerous" change, reported but allowed). The edits name the first
// field of Query and the first enum of whatever the schema is, so the cases hold as it evolves.
func TestSchemaCheck(t *testing.T) {
	script := schemaCheckScript(t)
	snapshot := snapshotDocument(t)
	field := definition(t, snapshot, "Query").Fields[0].Name
	var enum string
	for _, d := range snapshot.Definitions {
		if d.Kind == ast.Enum {
			enum = d.Name
			break
		}
	}
	if enum == "" {
		t.Fatal("the snapshot has no enum to add a value to")
	}

	cases := []struct {
		name                string
		released, candidate schemaEdit
		pass                bool
		want                []string // lines the tool prints
	}{
		{"unchanged", nil, nil, true,
			[]string{"No changes detected"}},
		{"added field", nil, addField("Query", "schemaCheckProbe"), true,
			[]string{"Field schemaCheckProbe was added to object type Query", "No breaking changes detected"}},
		{"deprecated field", nil, deprecateField("Query", field), true,
			[]string{"Field Query." + field + " is deprecated", "No breaking changes detected"}},
		{"added enum value", nil, addEnumValue(enum, "SCHEMA_CHECK_PROBE"), true,
			[]string{"Enum value SCHEMA_CHECK_PROBE was added to enum " + enum, "No breaking changes detected"}},
		{"removed field", nil, removeField("Query", field), false,
			[]string{"Field " + field + " was removed from object type Query", "Detected 1 breaking change"}},
		// A deprecated field is removed by releasing the schema, not silently.
		{"removed deprecated field", deprecateField("Query", field), removeField("Query", field), false,
			[]string{"Field " + field + " (deprecated) was removed from object type Query", "Detected 1 breaking change"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			released := writeSchema(t, filepath.Join(dir, "released.graphql"), c.released)
			candidate := writeSchema(t, filepath.Join(dir, "candidate.graphql"), c.candidate)
			out, err := exec.Command(script, released, candidate).CombinedOutput()
			var exit *exec.ExitError
			switch {
			case err != nil && !errors.As(err, &exit):
				t.Fatalf("%s: %v", script, err)
			case (err == nil) != c.pass:
				t.Errorf("passed = %v, want %v", err == nil, c.pass)
			}
			for _, w := range c.want {
				if !bytes.Contains(out, []byte(w)) {
					t.Errorf("output lacks %q", w)
				}
			}
			if t.Failed() {
				t.Logf("output:\n%s", out)
			}
		})
	}
}

// schemaCheckScript is the check's path, once node and the pinned tool are installed; without them
// the test says how to install them instead of failing on a missing command.
func schemaCheckScript(t *testing.T) string {
	return pinnedTool(t, "schema-check", "graphql-inspector")
}

// snapshotDocument parses testdata/schema.graphql afresh, so that each edit changes its own copy.
func snapshotDocument(t *testing.T) *ast.SchemaDocument {
	t.Helper()
	const path = "testdata/schema.graphql"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parser.ParseSchema(&ast.Source{Name: path, Input: string(src)})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// writeSchema writes the snapshot, changed by edit, to path.
func writeSchema(t *testing.T, path string, edit schemaEdit) string {
	t.Helper()
	doc := snapshotDocument(t)
	if edit != nil {
		edit(t, doc)
	}
	var buf bytes.Buffer
	formatter.NewFormatter(&buf, formatter.WithIndent("  ")).FormatSchemaDocument(doc)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func definition(t *testing.T, doc *ast.SchemaDocument, name string) *ast.Definition {
	t.Helper()
	d := doc.Definitions.ForName(name)
	if d == nil {
		t.Fatalf("the snapshot has no type %s", name)
	}
	return d
}

func addField(typ, field string) schemaEdit {
	return func(t *testing.T, doc *ast.SchemaDocument) {
		d := definition(t, doc, typ)
		d.Fields = append(d.Fields, &ast.FieldDefinition{Name: field, Type: ast.NamedType("String", nil)})
	}
}

func removeField(typ, field string) schemaEdit {
	return func(t *testing.T, doc *ast.SchemaDocument) {
		d := definition(t, doc, typ)
		n := len(d.Fields)
		d.Fields = fieldsWithout(d.Fields, field)
		if len(d.Fields) == n {
			t.Fatalf("%s has no field %s", typ, field)
		}
	}
}

func fieldsWithout(fields ast.FieldList, name string) ast.FieldList {
	var kept ast.FieldList
	for _, f := range fields {
		if f.Name != name {
			kept = append(kept, f)
		}
	}
	return kept
}

func deprecateField(typ, field string) schemaEdit {
	return func(t *testing.T, doc *ast.SchemaDocument) {
		f := definition(t, doc, typ).Fields.ForName(field)
		if f == nil {
			t.Fatalf("%s has no field %s", typ, field)
		}
		f.Directives = append(f.Directives, &ast.Directive{Name: "deprecated", Arguments: ast.ArgumentList{
			{Name: "reason", Value: &ast.Value{Kind: ast.StringValue, Raw: "retired by the schema check test"}},
		}})
	}
}

func addEnumValue(enum, value string) schemaEdit {
	return func(t *testing.T, doc *ast.SchemaDocument) {
		d := definition(t, doc, enum)
		d.EnumValues = append(d.EnumValues, &ast.EnumValueDefinition{Name: value})
	}
}
