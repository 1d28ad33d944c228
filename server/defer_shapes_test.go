package server_test

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"singletable/server"
)

// Deferred fields are absent, not null, from every payload before theirs, whatever the shape of
// the deferred fragment: an inline fragment on an object type under an interface (node, nodes),
// a named fragment of an interface type spread with @defer, defers nested in defers; over
// multipart/mixed and over Server-Sent Events. None of these operations selects a field that may
// be null, so no payload may hold a null; together the payloads are the undeferred answer. (A
// field without a resolver, read from its object, gqlgen delivers with the object even in a
// deferred fragment, as the spec allows: a title may come early, a reporter may not.)
// The payloads' calls together are the undeferred operation's, within its plan. @defer(if: false)
// is no defer: one payload, the whole answer.
func TestDeferredFieldsAreAbsentInEveryShape(t *testing.T) {
	a := newAPI(t, server.Config{})
	d := a.seedSaaS(2, 2, 2)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	vars := map[string]any{"t": ticketID(d.tickets[user.ID][0]), "ids": []string{orgID(org), ticketID(d.tickets[user.ID][1]), userID(user)}}
	for _, c := range []struct {
		name, deferred string
		absent         []string // keys the first payload must not hold
	}{
		{"inline fragment on a type of the interface", `query($t: ID!) { node(id: $t) { id ... on Ticket @defer(label: "t") { title reporter { name } } } }`, []string{`"reporter"`}},
		{"fragments on types of a list of an interface", `query($ids: [ID!]!) { nodes(ids: $ids) { id
			... on Organization @defer(label: "org") { name users(first: 1) { edges { node { id } } } }
			... on Ticket @defer(label: "ticket") { reporter { name } } ... on User { email } } }`, []string{`"users"`, `"reporter"`}},
		{"named fragment of an interface type", `query { organizations(first: 2) { edges { cursor node { id ...Named @defer(label: "named") } } } }
			fragment Named on Node { ... on Organization { users(first: 1) { edges { node { email } } } } }`, []string{`"users"`}},
		{"named fragment spread on an interface", `query($t: ID!) { node(id: $t) { id ...Titled @defer(label: "titled") } }
			fragment Titled on Ticket { title reporter { name } }`, []string{`"reporter"`}},
		{"nested defers", `query { organizations(first: 2) { edges { node { id
			... @defer(label: "users") { users(first: 2) { edges { node { id ... @defer(label: "tickets") { email
				tickets(first: 2) { edges { node { id ... on Node @defer(label: "reporter") { ... on Ticket { reporter { name } } } } } } } } } } } } } } }`, []string{`"users"`, `"tickets"`, `"reporter"`}},
	} {
		whole := a.ok(undeferText(c.deferred), vars, nil)
		plan := a.explain(c.deferred, vars).plan
		if plan == nil {
			t.Fatalf("%s: no plan", c.name)
		}
		for _, accept := range []string{acceptMultipart, acceptSSE} {
			r := a.deferred(accept, c.deferred, vars)
			if len(r.payloads) < 2 {
				t.Fatalf("%s over %s: %d payload(s): %+v", c.name, accept, len(r.payloads), r.payloads)
			}
			for _, key := range c.absent {
				if strings.Contains(string(r.payloads[0].Data), key) {
					t.Fatalf("%s over %s: the first payload holds the deferred %s: %s", c.name, accept, key, r.payloads[0].Data)
				}
			}
			for i, p := range append([]payload{r.payloads[0]}, r.increments()...) {
				if len(p.Errors) > 0 || strings.Contains(string(p.Data), "null") {
					t.Fatalf("%s over %s: payload %d holds a null (or errors %+v): %s", c.name, accept, i, p.Errors, p.Data)
				}
			}
			sameData(t, c.name+" over "+accept, r.merged(t), whole.Data)
			if got := r.calls(); !maps.Equal(got, whole.Extensions.DynamoDB.Calls) {
				t.Fatalf("%s over %s: the payloads' calls together %v, the undeferred operation's %v", c.name, accept, got, whole.Extensions.DynamoDB.Calls)
			}
			if over := within(plan, r.calls(), 0); over != "" {
				t.Fatalf("%s over %s: the payloads' calls exceed the plan: %s", c.name, accept, over)
			}
		}
		// @defer(if: false): no defer, over either transport.
		off := strings.ReplaceAll(c.deferred, `@defer(label: "`, `@defer(if: false, label: "`)
		for _, accept := range []string{acceptMultipart, acceptSSE} {
			r := a.deferred(accept, off, vars)
			if len(r.payloads) != 1 || r.payloads[0].HasNext != nil || len(r.payloads[0].Errors) > 0 {
				t.Fatalf("%s with if: false over %s: %+v", c.name, accept, r.payloads)
			}
			sameData(t, c.name+" with if: false over "+accept, decodeAny(t, r.payloads[0].Data), whole.Data)
		}
	}
}

// undeferText is query without its @defer directives (each `@defer(...)` taken out).
func undeferText(query string) string {
	for {
		i := strings.Index(query, "@defer(")
		if i < 0 {
			return query
		}
		j := strings.Index(query[i:], ")")
		query = query[:i] + query[i+j+1:]
	}
}

// decodeAny is raw decoded.
func decodeAny(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return v
}
