package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"singletable/server"
)

// A to-one field selected for its ID (and __typename) alone costs no read: the parent's item holds
// the reference. Explain plans no step for it, execution makes no call for it, and the ID it
// answers is the one the read would have given; selecting anything more reads the object again.
func TestIDOnlyToOneFieldsCostNoRead(t *testing.T) {
	a := newAPI(t, server.Config{})
	if _, err := a.repo.Seed(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := sampleOf(t, a)
	order, ticket := s.ids["Order"][0], s.ids["Ticket"][0]
	for _, c := range []struct {
		name, idOnly, full string
		vars               map[string]any
		path               string // the field whose read the full form makes
	}{
		{"an order's customer", `query($id: ID!) { order(id: $id) { id customer { id __typename } } }`,
			`query($id: ID!) { order(id: $id) { id customer { id name } } }`, map[string]any{"id": order}, "order.customer"},
		{"a ticket's reporter and organization", `query($id: ID!) { ticket(id: $id) { reporter { id } organization { ... on Organization { id } } } }`,
			`query($id: ID!) { ticket(id: $id) { reporter { id name } organization { id name } } }`, map[string]any{"id": ticket}, "ticket.reporter"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := a.explain(c.idOnly, c.vars)
			for _, st := range e.plan.Steps {
				if strings.Count(st.Path, ".") > 0 {
					t.Errorf("explain plans a read below the root: %+v", st)
				}
			}
			r := a.ok(c.idOnly, c.vars, nil)
			if got := r.Extensions.DynamoDB.Calls["BatchGetItem"] + r.Extensions.DynamoDB.Calls["Query"]; got != 1 {
				t.Errorf("calls %v: want the root's read alone", r.Extensions.DynamoDB.Calls)
			}
			full := a.ok(c.full, c.vars, nil)
			if full.Extensions.DynamoDB.Calls["BatchGetItem"]+full.Extensions.DynamoDB.Calls["Query"] < 2 {
				t.Errorf("the full form made %v: it reads the object", full.Extensions.DynamoDB.Calls)
			}
			if !hasStep(a.explain(c.full, c.vars).plan, c.path) {
				t.Errorf("the full form's plan has no step at %s", c.path)
			}
			// The IDs are the same either way.
			if ids(t, r.Data) != ids(t, full.Data) {
				t.Errorf("ID-only answered %s, the read %s", r.Data, full.Data)
			}
		})
	}
}

func hasStep(p *plan, path string) bool {
	for _, st := range p.Steps {
		if st.Path == path {
			return true
		}
	}
	return false
}

// ids is every "id" member of a response's data, in document order.
func ids(t *testing.T, data json.RawMessage) string {
	t.Helper()
	var out []string
	dec := json.NewDecoder(strings.NewReader(string(data)))
	prevID := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if s, ok := tok.(string); ok {
			if prevID {
				out = append(out, s)
			}
			prevID = s == "id"
		} else {
			prevID = false
		}
	}
	return strings.Join(out, ",")
}
