package server_test

import (
	"testing"
	"time"

	"singletable/repository"

	"singletable/server"
)

// The call budget of DESIGN.md §5 for the SaaS tree: 3 organizations fetched by nodes(ids:),
// 4 users each, 5 tickets each, every ticket's reporter and organization. The organizations and
// their users come from one Query per organization (AP2), the tickets from one Query per user
// (AP5), and every reporter and organization is already primed: exactly 15 Query, at most 3
// BatchGetItem, no GetItem, no Scan.
func TestNestedSaaSQueryCallBudget(t *testing.T) {
	// 20 ms per call models the distance to a real region, so that only calls that wait for one
	// another line up one after another (see Usage.Rounds).
	a := newAPI(t, server.Config{}, func(c *repository.Config) { c.AddedLatency = 20 * time.Millisecond })
	d := a.seedSaaS(3, 4, 5)
	ids := []string{orgID(d.orgs[0]), orgID(d.orgs[1]), orgID(d.orgs[2])}
	var out struct {
		Nodes []struct {
			Name  string
			Users struct {
				Edges []struct {
					Node struct {
						Name    string
						Tickets struct {
							Edges []struct {
								Node struct {
									Title        string
									Reporter     struct{ Name string }
									Organization struct{ Name string }
								}
							}
						}
					}
				}
			}
		}
	}
	r := a.ok(`query Tree($ids: [ID!]!) {
	  nodes(ids: $ids) {
	    ... on Organization {
	      name
	      users(first: 4) { edges { node { name
	        tickets(first: 5) { edges { node { title reporter { name } organization { name } } } }
	      } } }
	    }
	  }
	}`, map[string]any{"ids": ids}, &out)

	if len(out.Nodes) != 3 {
		t.Fatalf("got %d organizations", len(out.Nodes))
	}
	for i, o := range out.Nodes {
		if o.Name != d.orgs[i].Name || len(o.Users.Edges) != 4 {
			t.Fatalf("organization %d: %q with %d users", i, o.Name, len(o.Users.Edges))
		}
		for _, u := range o.Users.Edges {
			if len(u.Node.Tickets.Edges) != 5 {
				t.Fatalf("user %s has %d tickets", u.Node.Name, len(u.Node.Tickets.Edges))
			}
			for _, tk := range u.Node.Tickets.Edges {
				if tk.Node.Reporter.Name != u.Node.Name || tk.Node.Organization.Name != o.Name {
					t.Fatalf("ticket %q: reporter %q, organization %q", tk.Node.Title, tk.Node.Reporter.Name, tk.Node.Organization.Name)
				}
			}
		}
	}
	u := r.Extensions.DynamoDB
	t.Logf("DynamoDB calls: %v, rounds %d, capacity %.1f", u.Calls, u.Rounds, u.TotalCapacity)
	if got := r.calls("Query"); got != 15 {
		t.Errorf("Query calls = %d, want exactly 15", got)
	}
	if got := r.calls("BatchGetItem"); got > 3 {
		t.Errorf("BatchGetItem calls = %d, want at most 3", got)
	}
	if r.calls("GetItem") != 0 || r.calls("Scan") != 0 {
		t.Errorf("GetItem = %d, Scan = %d, want none", r.calls("GetItem"), r.calls("Scan"))
	}
	if u.TotalCalls != r.calls("Query")+r.calls("BatchGetItem") {
		t.Errorf("unexpected operations: %v", u.Calls)
	}
	if u.Rounds != 2 {
		t.Errorf("rounds = %d, want 2 (organizations with users, then tickets)", u.Rounds)
	}
}
