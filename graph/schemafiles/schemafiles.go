// Package schemafiles reads the server's schema from its files (graph/*.graphqls) for the tests of
// packages that must not import graph: graph imports them (planner, resolvers' own tests would
// cycle), or importing it would make go test compile graph's generated code once more against the
// test's own build (auth, graph/model). graph itself embeds and parses the same files.
package schemafiles

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// Sources are the schema files in dir (graph/, as the calling test finds it), in name order.
func Sources(dir string) ([]*ast.Source, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.graphqls"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("schemafiles: no *.graphqls in %s", dir)
	}
	out := make([]*ast.Source, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, &ast.Source{Name: f, Input: string(b)})
	}
	return out, nil
}

// Load parses the schema files in dir into the schema the server serves.
func Load(dir string) (*ast.Schema, error) {
	sources, err := Sources(dir)
	if err != nil {
		return nil, err
	}
	schema, gerr := gqlparser.LoadSchema(sources...)
	if gerr != nil {
		return nil, gerr
	}
	return schema, nil
}
