package server

import (
	"context"
	"reflect"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"singletable/graph"
)

// objectTypes is the concrete type of each object of an abstract type (an interface's, a
// union's) that an operation delivered in payloads resolved, by the object's path. Which of an
// object's fields are deferred depends on its concrete type (`... on Ticket @defer { x } ... on
// User { x }`), and the data gqlgen marshals does not say which type an object is unless the
// operation asked for __typename. fieldGuard records it as it passes each field: the field's
// context names the object's type.
//
// An object none of whose fields was recorded before its payload is written had every field it
// holds deferred (a placeholder) but __typename, which is never null: each field that is not
// deferred passes fieldGuard before the payload holding it is written.
type objectTypes struct {
	mu     sync.Mutex
	byPath map[string]string
}

type objectTypesKey struct{}

// withObjectTypes is ctx recording the concrete types of the objects its operation resolves.
func withObjectTypes(ctx context.Context) (context.Context, *objectTypes) {
	o := &objectTypes{byPath: map[string]string{}}
	return context.WithValue(ctx, objectTypesKey{}, o), o
}

// recordObjectType records the type of the object fc's field belongs to, when the field that
// holds the object declares an abstract type and ctx records types. Cheapest check first: most
// fields belong to objects whose type their field declares.
func recordObjectType(ctx context.Context, fc *graphql.FieldContext) {
	p := fc.Parent
	for p != nil && p.Index != nil {
		p = p.Parent // a list's element: the list's field declares its type
	}
	if p == nil || p.Field.Field == nil || p.Field.Definition == nil || p.Field.Definition.Type.Name() == fc.Object {
		return
	}
	o, _ := ctx.Value(objectTypesKey{}).(*objectTypes)
	if o == nil {
		return
	}
	path := fc.Parent.Path().String()
	o.mu.Lock()
	o.byPath[path] = fc.Object
	o.mu.Unlock()
}

// of is the type recorded for the object at path, "" when none was.
func (o *objectTypes) of(path ast.Path) string {
	if o == nil {
		return ""
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.byPath[path.String()]
}

// resolvedApart is the set of fields ("Type.field") that gqlgen resolves apart from their object,
// by a resolver: only those can be deferred. Every other field is read from the object and goes in
// the payload that holds the object, even inside a deferred fragment, as the spec allows; its null
// is a value, never a placeholder. gqlgen generates a resolver interface per object type with a
// method per such field (graph.ResolverRoot), whose names are the fields' in Go's spelling.
func resolvedApart(schema *ast.Schema) map[string]bool {
	out := map[string]bool{}
	root := reflect.TypeFor[graph.ResolverRoot]()
	for i := range root.NumMethod() {
		m := root.Method(i)
		def := schema.Types[m.Name]
		if def == nil || m.Type.NumOut() != 1 || m.Type.Out(0).Kind() != reflect.Interface {
			continue
		}
		resolvers := m.Type.Out(0)
		for j := range resolvers.NumMethod() {
			for _, f := range def.Fields {
				if goName(f.Name) == goName(resolvers.Method(j).Name) {
					out[def.Name+"."+f.Name] = true
				}
			}
		}
	}
	return out
}

// goName is a field's name as gqlgen spells it in Go, for comparison: no underscores, one case.
func goName(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, "_", ""))
}
