package server_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"singletable/server"
)

// deferSeed draws the random operations of TestRandomDeferredOperations: fixed, so that a failure
// can be run again; the test prints it.
const deferSeed = 20220824

// Random operations over the Node types (inline fragments on each type, on the interface and
// without a type, named fragments spread with and without @defer, alone or in a deferred
// fragment, the same response keys on different types, @defer(if:) by variable, defers nested in
// the selected objects): over multipart/mixed and Server-Sent Events, the payloads together are
// the same operation's answer without @defer, at every path, with no key delivered twice and no
// null (no field they select may be null, so a null is a placeholder left behind); on each object
// of the list, the first payload holds every key that the object's type selects outside deferred
// fragments and none that it selects only inside them and that is resolved apart; the calls of
// all payloads are those of the operation without @defer.
func TestRandomDeferredOperations(t *testing.T) {
	a := newAPI(t, server.Config{})
	d := a.seedSaaS(2, 2, 2)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	ids := []string{orgID(org), ticketID(d.tickets[user.ID][0]), userID(user), ticketID(d.tickets[user.ID][1])}
	types := []string{"Organization", "Ticket", "User", "Ticket"}
	t.Logf("seed %d", deferSeed)
	r := rand.New(rand.NewPCG(deferSeed, 0))
	for n := range 40 {
		g := &deferGen{r: r}
		doc, plain := g.operation()
		vars := map[string]any{"ids": ids, "yes": true, "no": false}
		whole := a.ok(plain, vars, nil)
		for _, accept := range []string{acceptMultipart, acceptSSE} {
			what := fmt.Sprintf("operation %d over %s: %s\n", n, accept, doc)
			resp := a.deferred(accept, doc, vars)
			for i, p := range append([]payload{resp.payloads[0]}, resp.increments()...) {
				if len(p.Errors) > 0 || strings.Contains(string(p.Data), "null") {
					t.Fatalf("%spayload %d holds a null (or errors %+v): %s", what, i, p.Errors, resp.text())
				}
			}
			first, _ := decodeAny(t, resp.payloads[0].Data).(map[string]any)
			nodes, _ := first["nodes"].([]any)
			for i, typ := range types {
				obj, _ := nodes[i].(map[string]any)
				for key, plainly := range g.keys(typ) {
					if _, has := obj[key]; has != plainly && (plainly || apartKeys[key]) {
						t.Fatalf("%sthe first payload's %s (a %s) holds %s: %v, want %v: %s", what, ids[i], typ, key, has, plainly, resp.text())
					}
				}
			}
			sameData(t, what, resp.merged(t), whole.Data)
			if got := resp.calls(); !maps.Equal(got, whole.Extensions.DynamoDB.Calls) {
				t.Fatalf("%sthe payloads' calls together %v, the undeferred operation's %v", what, got, whole.Extensions.DynamoDB.Calls)
			}
		}
	}
}

// deferMenu is what each Node type may select, by response key, and the type of the object in
// which "%s" takes a nested fragment (nestedMenu): the same key has the same shape on every type
// (a field merge rule).
var deferMenu = map[string]map[string][2]string{
	"Organization": {"a": {"name"}, "c": {"users(first: 2) { edges { node { id %s } } }", "User"}},
	"User": {"a": {"email"}, "b": {"organization { id %s }", "Organization"},
		"c": {"tickets(first: 2) { edges { node { id %s } } }", "Ticket"}, "d": {"organization { name }"}},
	"Ticket": {"a": {"title"}, "b": {"reporter { id %s }", "User"}, "d": {"organization { name }"}},
}

// apartKeys are the response keys of deferMenu whose fields have resolvers: only they can be
// deferred (the others come with their object).
var apartKeys = map[string]bool{"b": true, "c": true, "d": true}

// nestedMenu is what a nested fragment may select, by the type of the object it is in.
var nestedMenu = map[string][]string{
	"User":         {"", "... %s { n: id }", "... %s { r: organization { id } }"},
	"Ticket":       {"", "... %s { n: id }", "... %s { r: reporter { id } }"},
	"Organization": {"", "... %s { n: id }", "... %s { u: users(first: 1) { edges { node { id } } } }"},
}

// deferGen draws one operation: the top-level items of the list's objects, which it remembers.
type deferGen struct {
	r     *rand.Rand
	items []deferItem
	frags []string // fragment definitions
	label int
}

// deferItem is a top-level selection of the list's objects: on which type, deferred or not, which
// keys.
type deferItem struct {
	typ      string // "" for every type
	deferred bool
	keys     []string
}

// operation is a random operation and the same without @defer.
func (g *deferGen) operation() (deferred, plain string) {
	var b strings.Builder
	for range 2 + g.r.IntN(4) {
		b.WriteString(g.item())
		b.WriteByte(' ')
	}
	body := "{ nodes(ids: $ids) { " + b.String() + "} }\n" + strings.Join(g.frags, "\n")
	return withVariables(body), withVariables(undeferText(body))
}

// withVariables is body with the variables it uses declared.
func withVariables(body string) string {
	decl := "$ids: [ID!]!"
	for _, v := range []string{"yes", "no"} {
		if strings.Contains(body, "$"+v) {
			decl += ", $" + v + ": Boolean!"
		}
	}
	return "query(" + decl + ") " + body
}

// item is one top-level selection.
func (g *deferGen) item() string {
	types := slices.Sorted(maps.Keys(deferMenu))
	typ := types[g.r.IntN(len(types))]
	dir, deferred := g.directive()
	fields, keys := g.fields(typ)
	g.items = append(g.items, deferItem{typ: typ, deferred: deferred, keys: keys})
	switch g.r.IntN(6) {
	case 0:
		g.items[len(g.items)-1] = deferItem{keys: []string{"id"}}
		return "id"
	case 1:
		return fmt.Sprintf("... on %s %s { %s }", typ, dir, fields)
	case 2:
		return fmt.Sprintf("... %s { ... on %s { %s } }", dir, typ, fields)
	case 3:
		return fmt.Sprintf("... on Node %s { ... on %s { %s } }", dir, typ, fields)
	}
	name := fmt.Sprintf("F%d", len(g.frags))
	g.frags = append(g.frags, fmt.Sprintf("fragment %s on %s { %s }", name, typ, fields))
	if g.r.IntN(2) == 0 {
		// A spread in a fragment without a type, then plainly now and then.
		spread := fmt.Sprintf("... %s { ...%s }", dir, name)
		if g.r.IntN(2) == 0 {
			g.items = append(g.items, deferItem{typ: typ, keys: keys})
			spread += " ..." + name
		}
		return spread
	}
	// The same fragment spread again, with a directive of its own, now and then.
	if g.r.IntN(2) == 0 {
		again, deferredAgain := g.directive()
		g.items = append(g.items, deferItem{typ: typ, deferred: deferredAgain, keys: keys})
		return fmt.Sprintf("...%s %s ...%s %s", name, dir, name, again)
	}
	return fmt.Sprintf("...%s %s", name, dir)
}

// directive is a random @defer (or none), and whether it defers.
func (g *deferGen) directive() (string, bool) {
	g.label++
	switch g.r.IntN(6) {
	case 0:
		return "", false
	case 1:
		return "@defer(if: $no)", false
	case 2:
		return fmt.Sprintf("@defer(if: $yes, label: \"L%d\")", g.label), true
	case 3:
		return "@defer(if: true)", true
	}
	return fmt.Sprintf("@defer(label: \"L%d\")", g.label), true
}

// fields is one to three of typ's keys, selected, and the keys.
func (g *deferGen) fields(typ string) (string, []string) {
	keys := slices.Sorted(maps.Keys(deferMenu[typ]))
	g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	keys = keys[:1+g.r.IntN(min(3, len(keys)))]
	var b strings.Builder
	for _, k := range keys {
		sel, target := deferMenu[typ][k][0], deferMenu[typ][k][1]
		if target != "" {
			nested := nestedMenu[target][g.r.IntN(len(nestedMenu[target]))]
			if strings.Contains(nested, "%s") {
				dir, _ := g.directive()
				nested = fmt.Sprintf(nested, dir)
			}
			sel = fmt.Sprintf(sel, nested)
		}
		fmt.Fprintf(&b, "%s: %s ", k, sel)
	}
	return b.String(), keys
}

// keys is each key an object of type typ gets from the top-level items, and whether some item
// selects it outside a deferred fragment.
func (g *deferGen) keys(typ string) map[string]bool {
	out := map[string]bool{}
	for _, it := range g.items {
		if it.typ != "" && it.typ != typ {
			continue
		}
		for _, k := range it.keys {
			out[k] = out[k] || !it.deferred
		}
	}
	return out
}
