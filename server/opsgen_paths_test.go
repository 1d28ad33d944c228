package server_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"singletable/graph"
)

// A pathStep is one field on the way from Query to an object type: the field of owner, through a
// connection's edges and node when conn, inside an inline fragment on owner when frag (owner is
// then an implementation of the interface the step before returned).
type pathStep struct {
	owner *ast.Definition
	field *ast.FieldDefinition
	conn  bool
	frag  bool
}

// reachable is, for every object type the schema's queries can return, a shortest path of fields
// to it from Query: connections count as one step (their edges and node), an interface as its
// implementations (an inline fragment). Connection, edge and page-info types are the paths' own
// and are not listed.
func reachable(schema *ast.Schema) map[string][]pathStep {
	paths := map[string][]pathStep{schema.Query.Name: nil}
	queue := []*ast.Definition{schema.Query}
	for len(queue) > 0 {
		def := queue[0]
		queue = queue[1:]
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			typ := schema.Types[f.Type.Name()]
			conn := strings.HasSuffix(typ.Name, "Connection") && typ.Fields.ForName("edges") != nil
			if conn {
				edge := schema.Types[typ.Fields.ForName("edges").Type.Name()]
				typ = schema.Types[edge.Fields.ForName("node").Type.Name()]
			}
			targets := []*ast.Definition{typ}
			frag := typ.Kind == ast.Interface || typ.Kind == ast.Union
			if frag {
				targets = schema.GetPossibleTypes(typ)
			} else if typ.Kind != ast.Object {
				continue
			}
			for _, t := range targets {
				if _, seen := paths[t.Name]; seen {
					continue
				}
				step := pathStep{owner: def, field: f, conn: conn}
				p := append(slices.Clone(paths[def.Name]), step)
				if frag {
					p = append(p, pathStep{owner: t, frag: true})
				}
				paths[t.Name] = p
				queue = append(queue, t)
			}
		}
	}
	delete(paths, schema.Query.Name)
	return paths
}

// toward is an operation that reaches object type typ along its path (reachable), with its
// arguments drawn as any other's, and a random selection on typ.
func (g *opGen) toward(n int, typ string, path []pathStep) op {
	g.vars, g.decls, g.aliases, g.fields = map[string]any{}, nil, 0, 0
	inner := g.selection(g.schema.Types[typ], 1, len(path)*3, 0, false)
	for i := len(path) - 1; i >= 0; i-- {
		st := path[i]
		switch {
		case st.frag:
			inner = "id ... on " + st.owner.Name + " { " + inner + " }"
		case st.conn:
			inner = st.field.Name + g.args(st.owner, st.field) + " { edges { node { " + inner + " } } }"
		default:
			inner = st.field.Name + g.args(st.owner, st.field) + " { " + inner + " }"
		}
		if g.reached == nil {
			g.reached = map[string]bool{}
		}
		g.reached[st.owner.Name] = true
	}
	decl := ""
	if len(g.decls) > 0 {
		decl = "(" + strings.Join(g.decls, ", ") + ")"
	}
	return op{query: fmt.Sprintf("query Toward%d%s { %s }", n, decl, inner), vars: g.vars}
}

// unreached are the object types of paths the operations generated so far did not select on, in
// name order.
func (g *opGen) unreached(paths map[string][]pathStep) []string {
	var out []string
	for typ := range paths {
		if !g.reached[typ] {
			out = append(out, typ)
		}
	}
	slices.Sort(out)
	return out
}

// TestTowardEveryType: every object type the queries can return has a path, and an operation
// toward it selects on it.
func TestTowardEveryType(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	paths := reachable(schema)
	for _, want := range []string{"Organization", "User", "Ticket", "Department", "Employee", "Location", "Customer",
		"Order", "OrderItem", "Product", "Inventory", "Warehouse", "AccountRepSales", "JobHistory", "TicketChange"} {
		if _, ok := paths[want]; !ok {
			t.Errorf("no path to %s: %v", want, keys(paths))
		}
	}
	g := &opGen{r: rand.New(rand.NewPCG(1, 26)), schema: schema, sample: sampleValues{ids: map[string][]string{"Organization": {"T3JnOjE"}}}}
	for typ, p := range paths {
		o := g.toward(0, typ, p)
		if !g.reached[typ] || !strings.Contains(o.query, "{") {
			t.Errorf("toward %s: %s", typ, o.query)
		}
	}
	if u := g.unreached(paths); len(u) > 0 {
		t.Errorf("unreached after an operation toward each: %v", u)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
