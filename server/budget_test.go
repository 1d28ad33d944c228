package server_test

import (
	"testing"
	"time"

	"singletable/loaders/perparent"
	"singletable/repository/repotest"
	"singletable/repository/store/storetest"

	"singletable/server"
)

// The call budget (no N+1) for the SaaS tree: 3 organizations fetched by nodes(ids:),
// 4 users each, 5 tickets each, every ticket's reporter and organization. The organizations and
// their users come from one Query per organization (AP2), the tickets from one Query per user
// (AP5), and every reporter and organization is already primed: exactly 15 Query, at most 3
// BatchGetItem, no GetItem, no Scan.
func TestNestedSaaSQueryCallBudget(t *testing.T) {
	// 20 ms per call models the distance to a real region, so that only calls that wait for one
	// another line up one after another (see Usage.Rounds).
	a := newAPI(t, server.Config{}, repotest.WithLatency(20*time.Millisecond, 0))
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

// The per-parent baseline (loaders/perparent, benchmarks only) answers the same query with the same data, resolving each
// field on its own: one GetItem per lookup, one Query per parent list, nothing shared.
func TestPerParentModeAnswersTheSameWithMoreCalls(t *testing.T) {
	repo := storetest.New(t)
	batched := newAPIOn(t, repo, server.Config{})
	perParent := newAPIOn(t, repo, server.Config{Loaders: perparent.Options(), Planner: perparent.Planner{}})
	d := batched.seedSaaS(3, 4, 5)
	q := `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Organization { name users(first: 4) { edges { node { name
	  tickets(first: 5) { edges { node { title reporter { name } organization { name } } } } } } } } } }`
	vars := map[string]any{"ids": []string{orgID(d.orgs[0]), orgID(d.orgs[1]), orgID(d.orgs[2])}}
	a, b := batched.ok(q, vars, nil), perParent.ok(q, vars, nil)
	if string(a.Data) != string(b.Data) {
		t.Fatalf("different answers:\nbatched    %s\nper-parent %s", a.Data, b.Data)
	}
	want := map[string]int{"GetItem": 3 + 60 + 60, "Query": 3 + 12}
	if got := b.Extensions.DynamoDB.Calls; got["GetItem"] != want["GetItem"] || got["Query"] != want["Query"] || got["BatchGetItem"] != 0 {
		t.Fatalf("per-parent calls %v, want %v", got, want)
	}
}

// Users fetched by nodes(ids:), each with a filtered ticket list (its own Query, no read-ahead),
// asking each ticket's organization and reporter: however far apart the Queries return (up to
// 15 ms of jitter here), the organizations are looked up in one batch, queued when the lists
// start.
func TestTicketListsShareTheirLookupsWhateverTheQueryTimes(t *testing.T) {
	a := newAPI(t, server.Config{}, repotest.WithLatency(5*time.Millisecond, 15*time.Millisecond))
	d := a.seedSaaS(3, 2, 2)
	var ids []string
	for _, o := range d.orgs {
		for _, u := range d.users[o.ID] {
			ids = append(ids, userID(u))
		}
	}
	var out struct {
		Nodes []struct {
			Name    string
			Tickets struct {
				Edges []struct {
					Node struct {
						Reporter     struct{ Name string }
						Organization struct{ Name string }
					}
				}
			}
		}
	}
	r := a.ok(`query($ids: [ID!]!) { nodes(ids: $ids) { ... on User { name
	  tickets(first: 5, status: OPEN) { edges { node { reporter { name } organization { name } } } } } } }`,
		map[string]any{"ids": ids}, &out)
	for i, n := range out.Nodes {
		org := d.orgs[i/2]
		for _, e := range n.Tickets.Edges {
			if e.Node.Reporter.Name != n.Name || e.Node.Organization.Name != org.Name {
				t.Fatalf("user %s: ticket %+v", n.Name, e.Node)
			}
		}
	}
	u := r.Extensions.DynamoDB
	t.Logf("DynamoDB calls: %v, rounds %d", u.Calls, u.Rounds)
	if r.calls("Query") != len(ids) || r.calls("BatchGetItem") != 2 || u.TotalCalls != len(ids)+2 {
		t.Errorf("calls %v, want 1 BatchGetItem (users), %d Query, 1 BatchGetItem (organizations)", u.Calls, len(ids))
	}
}

// Root lookups are one level, whatever root fields they come from: every key they ask for is known
// from the arguments, so they share ONE BatchGetItem (per 100 keys), sent at once, while a lookup
// read with its first child page (an organization with its users) is its own Query beside it; the
// level below (each user's organization) is one more BatchGetItem for all of them.
func TestAliasedRootLookupsShareOneBatch(t *testing.T) {
	a := newAPI(t, server.Config{}, repotest.WithLatency(20*time.Millisecond, 0))
	d := a.seedSaaS(3, 2, 1)
	u0, u1 := d.users[d.orgs[0].ID][0], d.users[d.orgs[1].ID][1]
	var out struct {
		A, B struct {
			Name         string
			Organization struct{ Name string }
		}
		C struct{ Name string }
		D struct {
			Name  string
			Users struct {
				Edges []struct{ Node struct{ Name string } }
			}
		}
		E []struct{ Title string }
	}
	tk := d.tickets[u0.ID][0]
	r := a.ok(`query($u0: ID!, $u1: ID!, $o2: ID!, $o1: ID!, $t: ID!) {
	  a: user(id: $u0) { name organization { name } }
	  b: node(id: $u1) { ... on User { name organization { name } } }
	  c: organization(id: $o2) { name }
	  d: organization(id: $o1) { name users(first: 2) { edges { node { name } } } }
	  e: nodes(ids: [$t]) { ... on Ticket { title } }
	}`, map[string]any{"u0": userID(u0), "u1": userID(u1), "o2": orgID(d.orgs[2]), "o1": orgID(d.orgs[1]), "t": ticketID(tk)}, &out)
	if out.A.Name != u0.Name || out.A.Organization.Name != d.orgs[0].Name || out.B.Organization.Name != d.orgs[1].Name ||
		out.C.Name != d.orgs[2].Name || len(out.D.Users.Edges) != 2 || len(out.E) != 1 || out.E[0].Title != tk.Title {
		t.Fatalf("answer %+v", out)
	}
	u := r.Extensions.DynamoDB
	t.Logf("DynamoDB calls: %v, rounds %d", u.Calls, u.Rounds)
	// Round 1: the two users, the third organization and the ticket in one BatchGetItem, the
	// second organization with its users in one Query. Round 2: the users' organizations, of which
	// the second was read in round 1: the first alone.
	if r.calls("BatchGetItem") != 2 || r.calls("Query") != 1 || u.TotalCalls != 3 {
		t.Errorf("calls %v, want 2 BatchGetItem (the root level, then its users' organizations) and 1 Query", u.Calls)
	}
	if u.Rounds != 2 {
		t.Errorf("rounds = %d, want 2", u.Rounds)
	}
}
