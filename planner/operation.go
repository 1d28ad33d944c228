// Package planner decides, from one declarative table (Table: per object type and field, the
// reads it makes, with their access patterns), what an operation's objects need read ahead of
// their resolvers: for every place objects appear, a Level (the child lists to start for every
// object of the level at once, the list read together with an object asked for by ID, the keys the
// selected to-one fields and relations will look up). Levels are computed once per operation, on
// first use, and shared by every resolver of the place (Operation).
//
// The resolvers only ask the plan and hand its facts to the loaders: no resolver reads a selection
// by field name. The planner sees field names only through its table, and finds the types of
// connections, edges and nodes from the schema's field definitions; a test holds the table against
// the schema, and the plans are unit-tested against operations parsed with the real schema.
package planner

import (
	"context"
	"sync"
	"unsafe"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// A Planner builds the level of one place of an operation. TablePlanner is the API's; the
// benchmarks' per-parent baseline passes one that plans nothing ahead (loaders/perparent), so that
// every field reads on its own, as per-field resolvers do.
type Planner interface {
	// Level plans the objects of type typ that the selection set sels selects, in operation o:
	// the elements of list (its row, the variant its arguments select) when that is not nil. It
	// may ask o for the levels of the places below (o.ObjectsOf, o.NodesOf).
	Level(o *Plan, sels ast.SelectionSet, typ string, list *Field) *Level
}

// A Plan is the plan of one operation: its levels, each computed once, on first use, and
// shared by every resolver of its place.
type Plan struct {
	op      *graphql.OperationContext
	planner Planner

	mu     sync.Mutex
	levels map[levelKey]*Level

	once  sync.Once
	state any
}

// levelKey names a place: the selection set that selects the objects (gqlgen caches the fields it
// collects per selection set and operation, so every resolver of one place sees the same slice),
// and the objects' type.
type levelKey struct {
	sels *ast.Selection
	n    int
	typ  string
}

type contextKey struct{}

// NewContext returns ctx carrying the plan of operation op, made by p (TablePlanner{} when nil).
// The server installs it around every operation.
func NewContext(ctx context.Context, op *graphql.OperationContext, p Planner) context.Context {
	return WithPlan(ctx, NewPlan(op, p))
}

// NewPlan is the plan of operation op made by p (TablePlanner{} when nil), its levels computed
// on first use. The server makes it before the operation runs, to price and explain it
// (Explain), and the operation then runs with the same plan (WithPlan).
func NewPlan(op *graphql.OperationContext, p Planner) *Plan { return newOperation(op, p) }

// WithPlan returns ctx carrying plan p.
func WithPlan(ctx context.Context, p *Plan) context.Context {
	return context.WithValue(ctx, contextKey{}, p)
}

func newOperation(op *graphql.OperationContext, p Planner) *Plan {
	if p == nil {
		p = TablePlanner{}
	}
	return &Plan{op: op, planner: p, levels: map[levelKey]*Level{}}
}

// For is the plan of the operation ctx belongs to: the one NewContext installed, or, outside a
// server (a unit test of a resolver), a plan of its own made by the table.
func For(ctx context.Context) *Plan {
	if o, ok := ctx.Value(contextKey{}).(*Plan); ok {
		return o
	}
	var op *graphql.OperationContext
	if graphql.HasOperationContext(ctx) {
		op = graphql.GetOperationContext(ctx)
	}
	return newOperation(op, nil)
}

// Once is the value init makes, made once per operation: the resolvers keep there what they
// start for the operation's root level.
func (o *Plan) Once(init func() any) any {
	o.once.Do(func() { o.state = init() })
	return o.state
}

// ObjectsOf is the level of the objects of type typ that field f (a root lookup or a to-one field)
// returns.
func (o *Plan) ObjectsOf(f graphql.CollectedField, typ string) *Level {
	return o.level(f.Selections, typ, func() *Field { return nil })
}

// NodesOf is the level of the elements of connection f (edges { node { … } }).
func (o *Plan) NodesOf(f graphql.CollectedField) *Level {
	sels, typ := o.nodeSelections(f)
	if typ == "" {
		return nil
	}
	return o.level(sels, typ, func() *Field { return o.rowOf(f) })
}

// rowOf is the row of list field f, the variant its arguments select; nil for a field the table
// does not know.
func (o *Plan) rowOf(f graphql.CollectedField) *Field {
	if f.ObjectDefinition == nil {
		return nil
	}
	row := FieldOf(f.ObjectDefinition.Name, f.Name)
	if row == nil || row.Variant == nil {
		return row
	}
	return row.variant(f.ArgumentMap(o.op.Variables))
}

// Nodes is NodesOf the connection field being resolved.
func Nodes(ctx context.Context) *Level {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil {
		return nil
	}
	return For(ctx).NodesOf(fc.Field)
}

// level is the memoized level of the objects of type typ that sels selects; list is the row of
// the list they are the elements of, asked only when the level is planned.
func (o *Plan) level(sels ast.SelectionSet, typ string, list func() *Field) *Level {
	if o.op == nil {
		return nil
	}
	k := levelKey{sels: unsafe.SliceData(sels), n: len(sels), typ: typ}
	o.mu.Lock()
	l, ok := o.levels[k]
	o.mu.Unlock()
	if ok {
		return l
	}
	l = o.planner.Level(o, sels, typ, list())
	o.mu.Lock()
	defer o.mu.Unlock()
	if prev, ok := o.levels[k]; ok {
		return prev // another resolver of the place planned it meanwhile: one level per place
	}
	o.levels[k] = l
	return l
}

// nodeSelections is the selection set connection f makes on its nodes, and their type. The
// connection, edge and node types come from the schema's definitions of the fields; a connection
// whose edges or nodes are selected in several places has them merged by gqlgen into one field.
// A list read by a Query that is a plain list rather than a connection (a product's stock)
// selects on its elements directly.
func (o *Plan) nodeSelections(conn graphql.CollectedField) (ast.SelectionSet, string) {
	if conn.Definition == nil {
		return nil, ""
	}
	if conn.Definition.Type.Elem != nil {
		return conn.Selections, conn.Definition.Type.Name()
	}
	for _, e := range o.collect(conn.Selections, conn.Definition.Type.Name()) {
		if e.Name != edgesField || e.Definition == nil {
			continue
		}
		for _, n := range o.collect(e.Selections, e.Definition.Type.Name()) {
			if n.Name == nodeField && n.Definition != nil {
				return n.Selections, n.Definition.Type.Name()
			}
		}
	}
	return nil, ""
}

// Relay's connection shape: connection { edges { node } }.
const (
	edgesField = "edges"
	nodeField  = "node"
)

// collect is the fields sels selects on objects of type typ, as gqlgen collects them (the same
// types to satisfy, so the same cached result: see levelKey).
func (o *Plan) collect(sels ast.SelectionSet, typ string) []graphql.CollectedField {
	return graphql.CollectFields(o.op, sels, implementors(typ))
}

// nodeTypes implement the Node interface; gqlgen collects their fields for the type and the
// interface, in this order.
var nodeTypes = map[string][]string{}

func init() {
	for typ := range ByKey {
		nodeTypes[typ] = []string{typ, "Node"}
	}
}

// implementors is what gqlgen's generated code collects an object type's fields for.
func implementors(typ string) []string {
	if s, ok := nodeTypes[typ]; ok {
		return s
	}
	return []string{typ}
}
