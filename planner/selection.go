// Package planner reads an operation's selection sets and decides, from tables, which reads can be
// started or combined before the resolvers ask for them: the to-one lookups a level of objects will
// make (toOne), the child pages that one Query reads together with their parent (combined), and
// the relations an employee list reads ahead. Resolvers ask it questions about "the current
// field"; the tables say, per schema type and field, what the answer means for DynamoDB.
//
// It looks at field names only through these tables, and finds the types of connections, edges
// and nodes from the schema's field definitions, so a renamed connection type cannot silently
// switch an optimisation off; the plans are unit-tested against operations parsed with the real
// schema.
package planner

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// nodeInterface is the Relay interface every object type with an ID implements: fragments on it
// (`... on Node { id }`) select fields on every such type.
const nodeInterface = "Node"

// Relay's connection shape: connection { edges { node } }.
const (
	edgesField = "edges"
	nodeField  = "node"
)

// Selection is what an operation selects on objects of one type at one place of the query,
// fragments, aliases and @skip/@include resolved.
type Selection struct {
	op     *graphql.OperationContext
	typ    string
	fields []graphql.CollectedField
}

// On is the selection the current field (node, nodes, a typed lookup, a plain list) makes on
// objects of type typ. Empty outside a resolver.
func On(ctx context.Context, typ string) Selection {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || !graphql.HasOperationContext(ctx) {
		return Selection{typ: typ}
	}
	return OnSet(graphql.GetOperationContext(ctx), fc.Field.Selections, typ)
}

// OnSet is the selection set sels makes on objects of type typ.
func OnSet(op *graphql.OperationContext, sels ast.SelectionSet, typ string) Selection {
	return Selection{op: op, typ: typ, fields: graphql.CollectFields(op, sels, []string{typ, nodeInterface})}
}

// Nodes is the selection the current connection field makes on its nodes (edges { node { … } }).
func Nodes(ctx context.Context) Selection {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || !graphql.HasOperationContext(ctx) {
		return Selection{}
	}
	return NodesOf(graphql.GetOperationContext(ctx), fc.Field)
}

// NodesOf is the selection a connection field makes on its nodes. The connection, edge and node
// types come from the schema's definitions of the fields.
func NodesOf(op *graphql.OperationContext, conn graphql.CollectedField) Selection {
	out := Selection{op: op}
	if conn.Field == nil || conn.Definition == nil {
		return out
	}
	for _, e := range graphql.CollectFields(op, conn.Selections, []string{conn.Definition.Type.Name()}) {
		if e.Name != edgesField || e.Definition == nil {
			continue
		}
		for _, n := range graphql.CollectFields(op, e.Selections, []string{e.Definition.Type.Name()}) {
			if n.Name != nodeField || n.Definition == nil {
				continue
			}
			out.typ = n.Definition.Type.Name()
			out.fields = append(out.fields, graphql.CollectFields(op, n.Selections, []string{out.typ, nodeInterface})...)
		}
	}
	return out
}

// Type is the object type the selection is on.
func (s Selection) Type() string { return s.typ }

// Has reports whether the selection asks for the field name (under any alias).
func (s Selection) Has(name string) bool {
	for _, f := range s.fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

// all is every selection of the field name, one per alias.
func (s Selection) all(name string) []graphql.CollectedField {
	var out []graphql.CollectedField
	for _, f := range s.fields {
		if f.Name == name {
			out = append(out, f)
		}
	}
	return out
}

// args is a collected field's arguments, variables and defaults applied.
func (s Selection) args(f graphql.CollectedField) map[string]any {
	return f.ArgumentMap(s.op.Variables)
}

// Sole is the one field name the selection asks for, with its arguments; ok is false when there
// is none, or several (aliases, perhaps with other arguments): a child list started ahead must be
// the one its resolver will ask for.
func (s Selection) Sole(name string) (f graphql.CollectedField, args map[string]any, ok bool) {
	fs := s.all(name)
	if len(fs) != 1 {
		return graphql.CollectedField{}, nil, false
	}
	return fs[0], s.args(fs[0]), true
}

// Child is the selection a field f of this selection makes on objects of type typ (a manager's
// own fields, say).
func (s Selection) Child(f graphql.CollectedField, typ string) Selection {
	return OnSet(s.op, f.Selections, typ)
}

// ChildNodes is the selection a connection field f of this selection makes on its nodes.
func (s Selection) ChildNodes(f graphql.CollectedField) Selection {
	return NodesOf(s.op, f)
}
