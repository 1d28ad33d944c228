package server_test

import (
	"strings"
	"testing"

	"singletable/server"
)

// A response key may be deferred on one type and not on another, under two labels, in a spread
// that is also spread without @defer, or by a variable. For each object, a key is absent from the
// first payload only when every selection of it on that object's type is deferred; the payloads
// together are the undeferred answer exactly, at every path; no key is delivered twice. Over
// multipart/mixed and over Server-Sent Events.
func TestDeferredKeysFollowEachObjectsType(t *testing.T) {
	a := newAPI(t, server.Config{})
	d := a.seedSaaS(2, 2, 2)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	tk := d.tickets[user.ID][0]
	vars := map[string]any{"t": ticketID(tk), "u": userID(user), "ids": []string{orgID(org), ticketID(tk), userID(user)}}
	for _, c := range []deferCase{
		{name: "a key deferred on one type of the list, not on another", doc: `query($ids: [ID!]!) { nodes(ids: $ids) { id
			... on Ticket { x: reporter { name } } ... on User { ... @defer(label: "u") { x: organization { name } } } } }`,
			present: []string{`"x":{"name":"User a"}`}, absent: []string{`"x":{"name":"Org A"}`}},
		{name: "the same alias under two type conditions, deferred on one", doc: `query($ids: [ID!]!) { nodes(ids: $ids) { id
			... on Ticket @defer(label: "t") { o: organization { name } } ... on User { o: organization { name } } } }`,
			present: []string{`"o":{"name":"Org A"}`}},
		{name: "a key deferred on the interface, selected plainly on one type", doc: `query($ids: [ID!]!) { nodes(ids: $ids) {
			... on Node @defer(label: "n") { ... on User { o: organization { id } } ... on Ticket { o: organization { id } } }
			... on User { o: organization { id } } } }`,
			present: []string{`"o":{"id":"` + orgID(org) + `"}`}},
		{name: "the same key deferred under two labels", doc: `query($t: ID!) { node(id: $t) { id
			... on Ticket @defer(label: "a") { reporter { name } } ... on Ticket @defer(label: "b") { reporter { name } organization { name } } } }`,
			absent: []string{`"reporter"`, `"organization"`}},
		{name: "a nested defer inside a plain sibling of the same key", doc: `query($u: ID!) { node(id: $u) { ... on User { id
			tickets(first: 2) { edges { node { id } } }
			... @defer(label: "outer") { tickets(first: 2) { edges { node { ... @defer(label: "inner") { reporter { email } } } } } } } } }`,
			present: []string{`"tickets"`}, absent: []string{`"reporter"`}},
		{name: "the same key in two deferred fragments without a label", doc: `query($t: ID!) { node(id: $t) { id
			... on Ticket @defer { reporter { name } } ... @defer { ... on Ticket { reporter { name } organization { name } } } } }`,
			absent: []string{`"reporter"`, `"organization"`}},
		{name: "the same label twice", doc: `query($t: ID!) { node(id: $t) { id
			... on Ticket @defer(label: "same") { reporter { name } } ... on Ticket @defer(label: "same") { reporter { name } } } }`,
			absent: []string{`"reporter"`}},
		{name: "@defer(if: $var), true", doc: `query($t: ID!, $d: Boolean!) { node(id: $t) { id ... on Ticket @defer(if: $d, label: "v") { reporter { name } } } }`,
			vars: map[string]any{"d": true}, absent: []string{`"reporter"`}, undeferred: usedD},
		{name: "@defer(if: $var), false", doc: `query($t: ID!, $d: Boolean!) { node(id: $t) { id ... on Ticket @defer(if: $d, label: "v") { reporter { name } } } }`,
			vars: map[string]any{"d": false}, present: []string{`"reporter"`}, whole: true, undeferred: usedD},
		{name: "a fragment spread deferred, then plainly", doc: `query($t: ID!) { node(id: $t) { id ...Who @defer(label: "who") ...Who } }
			fragment Who on Ticket { reporter { name } }`, present: []string{`"reporter"`}, whole: true},
		{name: "a fragment spread plainly, then deferred", doc: `query($t: ID!) { node(id: $t) { id ...Who ...Who @defer(label: "who") } }
			fragment Who on Ticket { reporter { name } }`, present: []string{`"reporter"`}, whole: true},
		{name: "a spread inside a deferred fragment, then plainly", doc: `query($t: ID!) { node(id: $t) { id ... on Ticket @defer(label: "d") { ...Who } ...Who } }
			fragment Who on Ticket { reporter { name } }`, present: []string{`"reporter"`}, whole: true},
		{name: "a null without a resolver in a deferred fragment", doc: `query($u: ID!) { node(id: $u) { ... on User { id
			tickets(first: 1, createdBefore: "2000-01-01T00:00:00Z") { edges { node { id } } pageInfo { ... @defer(label: "p") { endCursor hasNextPage } } }
			... @defer(label: "o") { organization { name } } } } }`, nulls: true, absent: []string{`"organization"`}},
	} {
		for k, v := range vars {
			if c.vars == nil {
				c.vars = map[string]any{}
			}
			c.vars[k] = v
		}
		t.Run(c.name, func(t *testing.T) { c.check(t, a) })
	}
}

// deferCase is an operation with @defer and what its payloads must show.
type deferCase struct {
	name, doc string
	vars      map[string]any
	present   []string // texts the first payload must hold
	absent    []string // texts the first payload must not hold
	nulls     bool     // the answer may hold a null (otherwise a null is a placeholder left behind)
	whole     bool     // nothing is deferred: one payload
	// undeferred is the same operation without @defer, when taking @defer out is not enough (a
	// variable only @defer used).
	undeferred string
}

// usedD is the operation of the @defer(if: $d) cases without @defer, $d still used.
const usedD = `query($t: ID!, $d: Boolean!) { node(id: $t) { id
	... on Ticket @include(if: $d) { reporter { name } } ... on Ticket @skip(if: $d) { reporter { name } } } }`

// check runs c over both incremental transports against the same document without @defer.
func (c deferCase) check(t *testing.T, a *api) {
	t.Helper()
	undeferred := c.undeferred
	if undeferred == "" {
		undeferred = undeferText(c.doc)
	}
	whole := a.ok(undeferred, c.vars, nil)
	for _, accept := range []string{acceptMultipart, acceptSSE} {
		what := c.name + " over " + accept
		r := a.deferred(accept, c.doc, c.vars)
		if c.whole {
			if len(r.payloads) != 1 {
				t.Fatalf("%s: %d payloads, want 1: %s", what, len(r.payloads), r.text())
			}
		} else if len(r.payloads) < 2 {
			t.Fatalf("%s: %d payload(s): %s", what, len(r.payloads), r.text())
		}
		first := string(r.payloads[0].Data)
		for _, s := range c.present {
			if !strings.Contains(first, s) {
				t.Fatalf("%s: the first payload lacks %s: %s", what, s, r.text())
			}
		}
		for _, s := range c.absent {
			if strings.Contains(first, s) {
				t.Fatalf("%s: the first payload holds the deferred %s: %s", what, s, r.text())
			}
		}
		for i, p := range append([]payload{r.payloads[0]}, r.increments()...) {
			if len(p.Errors) > 0 || (!c.nulls && strings.Contains(string(p.Data), "null")) {
				t.Fatalf("%s: payload %d holds a null (or errors %+v): %s", what, i, p.Errors, r.text())
			}
		}
		for _, inc := range r.increments() {
			if inc.Label != nil && !strings.Contains(c.doc, `label: "`+*inc.Label+`"`) {
				t.Fatalf("%s: a payload's label %q is none of the operation's: %s", what, *inc.Label, r.text())
			}
		}
		sameData(t, what, r.merged(t), whole.Data)
	}
}
