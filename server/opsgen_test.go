package server_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// opGen generates random read operations over the schema, walking it from Query: random fields of
// each object (scalars, to-one fields, lists, connections with edges, nodes, cursors and page
// info), random aliases (the same field twice with other arguments too), `first` between 1 and
// 100, omitted or passed in a variable, optional filters, and IDs taken from the sample data
// where an argument needs one (sometimes a malformed one). Depth counts object levels (a
// connection's edges and node are one level with it), at most maxLevels, and the document stays
// within the server's default depth bound. It is seeded: the same seed makes the same
// operations, and a failure prints the operation.
type opGen struct {
	r      *rand.Rand
	schema *ast.Schema
	sample sampleValues

	vars            map[string]any
	decls           []string
	aliases, fields int
	// reached are the object types the operations so far selected on.
	reached map[string]bool
}

// Bounds of a generated operation, under the server's default bounds on fields and aliases.
const (
	maxGenFields  = 250
	maxGenAliases = 80
)

// sampleValues are values of the sample data the generator picks arguments from.
type sampleValues struct {
	ids       map[string][]string // global IDs by node type
	jobTitles []string
	names     []string // employees' names
	countries []string
	states    map[string][]string // by country
	cities    map[string][]string // by state
}

const (
	maxLevels   = 5
	maxDocDepth = 14 // under GRAPHQL_MAX_DEPTH (15), leaf included
)

// op is one generated operation and its variables.
type op struct {
	query string
	vars  map[string]any
}

func (g *opGen) next(n int) op {
	g.vars, g.decls, g.aliases, g.fields = map[string]any{}, nil, 0, 0
	body := g.selection(g.schema.Query, 0, 0, 1+g.r.IntN(3), false)
	decl := ""
	if len(g.decls) > 0 {
		decl = "(" + strings.Join(g.decls, ", ") + ")"
	}
	return op{query: fmt.Sprintf("query Random%d%s { %s }", n, decl, body), vars: g.vars}
}

// selection selects on objects of type def: want fields at most (0: any number), at object level
// level and document depth depth. In a fragment (frag) every scalar gets an alias of its own:
// fragments on other types may select a field of the same name and another type (an order's
// status and a ticket's), which GraphQL does not merge.
func (g *opGen) selection(def *ast.Definition, level, depth, want int, frag bool) string {
	if def.Kind == ast.Interface {
		return g.fragments(def, level, depth)
	}
	if g.reached == nil {
		g.reached = map[string]bool{}
	}
	g.reached[def.Name] = true
	var parts []string
	fields := slices.Clone(def.Fields)
	g.r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	for _, f := range fields {
		if strings.HasPrefix(f.Name, "__") || (want > 0 && len(parts) >= want) {
			continue
		}
		if s := g.field(def, f, level, depth, frag, false); s != "" {
			parts = append(parts, s)
			if strings.Contains(s, "{") && g.r.IntN(6) == 0 {
				// the same field again, under an alias, with arguments of its own
				if again := g.field(def, f, level, depth, frag, true); again != "" {
					parts = append(parts, again)
				}
			}
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "__typename")
	}
	return strings.Join(parts, " ")
}

// fragments selects on an interface through inline fragments on some of its implementations.
func (g *opGen) fragments(def *ast.Definition, level, depth int) string {
	parts := []string{"id"}
	for _, impl := range g.schema.GetPossibleTypes(def) {
		if g.r.IntN(3) == 0 {
			parts = append(parts, "... on "+impl.Name+" { "+g.selection(impl, level, depth, 0, true)+" }")
		}
	}
	return strings.Join(parts, " ")
}

// field is one selected field of def (with its alias, arguments and selection), or "" for a
// field left out.
func (g *opGen) field(def *ast.Definition, f *ast.FieldDefinition, level, depth int, frag, aliased bool) string {
	typ := g.schema.Types[f.Type.Name()]
	if g.fields >= maxGenFields || ((frag || aliased) && g.aliases >= maxGenAliases) {
		return ""
	}
	g.fields++
	if typ.Kind == ast.Scalar || typ.Kind == ast.Enum {
		if g.r.IntN(2) == 0 {
			return ""
		}
		if frag {
			g.aliases++
			return fmt.Sprintf("s%d: %s", g.aliases, f.Name)
		}
		return g.alias() + f.Name
	}
	conn := strings.HasSuffix(typ.Name, "Connection")
	need := 2
	if conn {
		need = 4 // field, edges, node, a leaf
	}
	if level >= maxLevels || depth+need > maxDocDepth || g.r.IntN(10) >= 7-level {
		return ""
	}
	alias := g.alias()
	if aliased && alias == "" {
		g.aliases++
		alias = fmt.Sprintf("again%d: ", g.aliases)
	}
	out := alias + f.Name + g.args(def, f)
	if conn {
		return out + " { " + g.connection(typ, level+1, depth+1) + " }"
	}
	return out + " { " + g.selection(typ, level+1, depth+1, 0, false) + " }"
}

// connection selects on a connection: its edges' nodes, cursors, page info.
func (g *opGen) connection(conn *ast.Definition, level, depth int) string {
	edge := g.schema.Types[conn.Fields.ForName("edges").Type.Name()]
	node := g.schema.Types[edge.Fields.ForName("node").Type.Name()]
	var parts []string
	switch g.r.IntN(6) {
	case 0:
		parts = append(parts, "edges { cursor }")
	case 1:
		parts = append(parts, "pageInfo { hasNextPage endCursor }")
	default:
		parts = append(parts, "edges { node { "+g.selection(node, level, depth+2, 0, false)+" } }")
		if g.r.IntN(3) == 0 {
			parts = append(parts, "pageInfo { hasNextPage }")
		}
	}
	return strings.Join(parts, " ")
}

// alias is a random alias, or none.
func (g *opGen) alias() string {
	if g.r.IntN(4) == 0 && g.aliases < maxGenAliases {
		g.aliases++
		return fmt.Sprintf("a%d: ", g.aliases)
	}
	return ""
}

// args are f's arguments: every required one, optional ones at random.
func (g *opGen) args(def *ast.Definition, f *ast.FieldDefinition) string {
	var parts []string
	var chosen = map[string]string{}
	for _, a := range f.Arguments {
		required := a.Type.NonNull && a.DefaultValue == nil
		if a.Name == "after" || (!required && !g.optional(a.Name, chosen)) {
			continue
		}
		if v := g.value(def, f, a, chosen); v != "" {
			chosen[a.Name] = v
			parts = append(parts, a.Name+": "+v)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// optional decides whether to pass an optional argument (a city only with its state).
func (g *opGen) optional(name string, chosen map[string]string) bool {
	switch name {
	case "first":
		return g.r.IntN(4) != 0
	case "city":
		return chosen["state"] != "" && g.r.IntN(2) == 0
	case "postalCode":
		return false
	}
	return g.r.IntN(4) == 0
}

// value is a value for argument a of f: from the sample data where one is needed.
func (g *opGen) value(def *ast.Definition, f *ast.FieldDefinition, a *ast.ArgumentDefinition, chosen map[string]string) string {
	typ := g.schema.Types[a.Type.Name()]
	switch {
	case a.Name == "first":
		n := 1 + g.r.IntN(5)
		if g.r.IntN(2) == 0 {
			n = 1 + g.r.IntN(100)
		}
		if g.r.IntN(4) == 0 {
			name := fmt.Sprintf("f%d", len(g.decls))
			g.decls = append(g.decls, "$"+name+": Int")
			g.vars[name] = n
			return "$" + name
		}
		return fmt.Sprint(n)
	case a.Name == "ids":
		ids := make([]string, 1+g.r.IntN(4))
		for i := range ids {
			ids[i] = g.id("")
		}
		return "[" + strings.Join(ids, ", ") + "]"
	case a.Name == "id":
		return g.id(f.Type.Name())
	case strings.HasSuffix(a.Name, "Id") && typ.Name == "ID":
		return g.id(idArgType(a.Name))
	case typ.Kind == ast.Enum:
		return typ.EnumValues[g.r.IntN(len(typ.EnumValues))].Name
	case typ.Name == "Time":
		return fmt.Sprintf("%q", []string{"2020-01-01T00:00:00Z", "2025-12-01T00:00:00Z", "2026-01-20T00:00:00Z", "2026-02-15T00:00:00Z"}[g.r.IntN(4)])
	}
	return g.text(a.Name, chosen)
}

// text is a string argument from the sample data.
func (g *opGen) text(name string, chosen map[string]string) string {
	pick := func(s []string) string {
		if len(s) == 0 {
			return `"x"`
		}
		return fmt.Sprintf("%q", s[g.r.IntN(len(s))])
	}
	unquote := func(s string) string { return strings.Trim(s, `"`) }
	switch name {
	case "jobTitle":
		return pick(g.sample.jobTitles)
	case "name":
		return pick(g.sample.names)
	case "country":
		return pick(g.sample.countries)
	case "state":
		return pick(g.sample.states[unquote(chosen["country"])])
	case "city":
		return pick(g.sample.cities[unquote(chosen["state"])])
	}
	return `"x"`
}

// id is a sample ID of node type typ (any type when typ is not one), now and then a malformed one.
func (g *opGen) id(typ string) string {
	if g.r.IntN(25) == 0 {
		return `"not-an-id"`
	}
	ids := g.sample.ids[typ]
	if len(ids) == 0 {
		var types []string
		for t := range g.sample.ids {
			types = append(types, t)
		}
		slices.Sort(types)
		ids = g.sample.ids[types[g.r.IntN(len(types))]]
	}
	return fmt.Sprintf("%q", ids[g.r.IntN(len(ids))])
}

// idArgType is the node type of an ID argument named name (organizationId: Organization; a
// reporter is a User, a manager or mentor an Employee).
func idArgType(name string) string {
	switch name = strings.TrimSuffix(name, "Id"); name {
	case "reporter":
		return "User"
	case "manager", "mentor":
		return "Employee"
	}
	return strings.ToUpper(name[:1]) + name[1:]
}
