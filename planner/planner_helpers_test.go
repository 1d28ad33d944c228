package planner

import (
	"context"
	"sync"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"singletable/graph/schemafiles"
)

var (
	schemaOnce sync.Once
	schema     *ast.Schema
	schemaErr  error
)

// loadSchema parses the server's own schema files (graph/*.graphqls).
func loadSchema(t testing.TB) *ast.Schema {
	t.Helper()
	schemaOnce.Do(func() { schema, schemaErr = schemafiles.Load("../graph") })
	if schemaErr != nil || schema == nil {
		t.Fatalf("loading the schema: %v", schemaErr)
	}
	return schema
}

// operation parses and validates query against the schema and returns its operation context and
// its first root field, as gqlgen would hand them to that field's resolver.
func operation(t testing.TB, query string, vars map[string]any) (*graphql.OperationContext, graphql.CollectedField) {
	t.Helper()
	doc, errs := gqlparser.LoadQueryWithRules(loadSchema(t), query, nil)
	if len(errs) > 0 {
		t.Fatalf("invalid operation: %v", errs)
	}
	op := &graphql.OperationContext{Doc: doc, Operation: doc.Operations[0], Variables: vars}
	roots := graphql.CollectFields(op, doc.Operations[0].SelectionSet, []string{"Query"})
	if len(roots) == 0 {
		t.Fatal("no root field")
	}
	return op, roots[0]
}

// fieldContext is the context a resolver of field f runs with, in an operation planned by p.
func fieldContext(op *graphql.OperationContext, p Planner, f graphql.CollectedField) context.Context {
	ctx := graphql.WithOperationContext(context.Background(), op)
	ctx = NewContext(ctx, op, p)
	return graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: f})
}

// child is the first field named name that parent selects on objects of type typ, as gqlgen
// collects it.
func child(t testing.TB, op *graphql.OperationContext, parent graphql.CollectedField, typ, name string) graphql.CollectedField {
	t.Helper()
	for _, f := range graphql.CollectFields(op, parent.Selections, implementors(typ)) {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("%s selects no %s on %s", parent.Name, name, typ)
	return graphql.CollectedField{}
}

// nodesOf is the node field of connection conn (edges { node }), as gqlgen collects it.
func nodesOf(t testing.TB, op *graphql.OperationContext, conn graphql.CollectedField) graphql.CollectedField {
	t.Helper()
	for _, e := range graphql.CollectFields(op, conn.Selections, []string{conn.Definition.Type.Name()}) {
		for _, n := range graphql.CollectFields(op, e.Selections, []string{e.Definition.Type.Name()}) {
			if e.Name == edgesField && n.Name == "node" {
				return n
			}
		}
	}
	t.Fatalf("%s selects no edges { node }", conn.Name)
	return graphql.CollectedField{}
}
