package server_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"singletable/graph/model"
	"singletable/repository"
	"singletable/repository/saas"
	"singletable/server"
)

type pageInfo struct {
	HasNextPage     bool
	HasPreviousPage bool
	StartCursor     *string
	EndCursor       *string
}

type userConn struct {
	Edges []struct {
		Cursor string
		Node   struct{ ID, Name, Email string }
	}
	PageInfo pageInfo
}

type ticketConn struct {
	Edges []struct {
		Cursor string
		Node   struct {
			ID, Title, Status string
			CreatedAt         time.Time
		}
	}
	PageInfo pageInfo
}

func TestSaaSAccessPatterns(t *testing.T) {
	a := newAPI(t, server.Config{})
	d := a.seedSaaS(2, 4, 3)
	org, users := d.orgs[0], d.users[d.orgs[0].ID]

	t.Run("AP1 organization by id is one batched key lookup", func(t *testing.T) {
		var out struct{ Organization struct{ ID, Name string } }
		r := a.ok(`query($id: ID!) { organization(id: $id) { id name } }`, map[string]any{"id": orgID(org)}, &out)
		if out.Organization.Name != org.Name || out.Organization.ID != orgID(org) {
			t.Fatalf("got %+v", out.Organization)
		}
		if r.calls("BatchGetItem") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("calls %v, want one BatchGetItem", r.Extensions.DynamoDB.Calls)
		}
	})

	t.Run("AP2 organization with users is ONE Query of its collection", func(t *testing.T) {
		var out struct {
			Organization struct {
				Name  string
				Users userConn
			}
		}
		r := a.ok(`query($id: ID!) { organization(id: $id) { name users(first: 2) { edges { cursor node { id name email } } pageInfo { hasNextPage hasPreviousPage endCursor } } } }`,
			map[string]any{"id": orgID(org)}, &out)
		if r.calls("Query") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("calls %v, want exactly one Query", r.Extensions.DynamoDB.Calls)
		}
		got := out.Organization.Users
		if out.Organization.Name != org.Name || len(got.Edges) != 2 || got.Edges[0].Node.Name != users[0].Name || got.Edges[1].Node.Name != users[1].Name {
			t.Fatalf("got %+v", out.Organization)
		}
		if !got.PageInfo.HasNextPage || got.PageInfo.HasPreviousPage {
			t.Fatalf("pageInfo %+v", got.PageInfo)
		}

		// AP3: the next page continues with the AP2 cursor, Query PK=ORG#o begins_with(SK, USER#).
		var next struct{ Organization struct{ Users userConn } }
		r = a.ok(`query($id: ID!, $after: String) { organization(id: $id) { users(first: 2, after: $after) { edges { node { name } } pageInfo { hasNextPage hasPreviousPage } } } }`,
			map[string]any{"id": orgID(org), "after": *got.PageInfo.EndCursor}, &next)
		n := next.Organization.Users
		if len(n.Edges) != 2 || n.Edges[0].Node.Name != users[2].Name || n.Edges[1].Node.Name != users[3].Name || n.PageInfo.HasNextPage || !n.PageInfo.HasPreviousPage {
			t.Fatalf("second page %+v", n)
		}
		if r.calls("Query") != 1 || r.calls("BatchGetItem") != 1 {
			t.Fatalf("calls %v: want the organization batched and one Query for its users", r.Extensions.DynamoDB.Calls)
		}
	})

	t.Run("AP3 users of every listed organization, one Query each", func(t *testing.T) {
		var out struct {
			Organizations struct {
				Edges []struct{ Node struct{ Users userConn } }
			}
		}
		r := a.ok(`{ organizations { edges { node { users(first: 10) { edges { node { name } } } } } } }`, nil, &out)
		if len(out.Organizations.Edges) != 2 {
			t.Fatalf("organizations: %+v", out)
		}
		for _, e := range out.Organizations.Edges {
			if len(e.Node.Users.Edges) != 4 {
				t.Fatalf("users: %+v", e.Node.Users)
			}
		}
		if r.calls("Query") != 3 || r.Extensions.DynamoDB.TotalCalls != 3 {
			t.Fatalf("calls %v, want 1 (AP7) + 2 (AP3) Query", r.Extensions.DynamoDB.Calls)
		}
	})

	t.Run("AP4 AP6 users and tickets by id share one BatchGetItem", func(t *testing.T) {
		tk := d.tickets[users[1].ID][0]
		var out struct {
			Nodes []struct {
				ID, Name, Title string
			}
		}
		r := a.ok(`query($ids: [ID!]!) { nodes(ids: $ids) { id ... on User { name } ... on Ticket { title } } }`,
			map[string]any{"ids": []string{userID(users[0]), ticketID(tk), userID(users[0])}}, &out)
		if len(out.Nodes) != 3 || out.Nodes[0].Name != users[0].Name || out.Nodes[1].Title != tk.Title || out.Nodes[2].ID != userID(users[0]) {
			t.Fatalf("nodes %+v", out.Nodes)
		}
		if r.calls("BatchGetItem") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("calls %v, want one BatchGetItem", r.Extensions.DynamoDB.Calls)
		}

		// A ticket's reporter and organization are two keys of one level: one BatchGetItem.
		var one struct {
			Node struct {
				Reporter     struct{ Name string }
				Organization struct{ Name string }
			}
		}
		r = a.ok(`query($id: ID!) { node(id: $id) { ... on Ticket { reporter { name } organization { name } } } }`, map[string]any{"id": ticketID(tk)}, &one)
		if one.Node.Reporter.Name != users[1].Name || one.Node.Organization.Name != org.Name {
			t.Fatalf("ticket %+v", one)
		}
		if r.calls("BatchGetItem") != 2 || r.Extensions.DynamoDB.TotalCalls != 2 {
			t.Fatalf("calls %v, want the ticket, then reporter+organization in one batch", r.Extensions.DynamoDB.Calls)
		}
	})

	t.Run("AP5 a user's tickets newest first, with the user, in one Query", func(t *testing.T) {
		var out struct {
			Node struct {
				Name    string
				Tickets ticketConn
			}
		}
		r := a.ok(`query($id: ID!) { node(id: $id) { ... on User { name tickets(first: 10) { edges { node { id title createdAt } } pageInfo { hasNextPage } } } } }`,
			map[string]any{"id": userID(users[2])}, &out)
		want := d.tickets[users[2].ID]
		got := out.Node.Tickets.Edges
		if out.Node.Name != users[2].Name || len(got) != len(want) || out.Node.Tickets.PageInfo.HasNextPage {
			t.Fatalf("got %+v", out.Node)
		}
		for i := range got {
			if got[i].Node.ID != ticketID(want[len(want)-1-i]) {
				t.Fatalf("ticket %d is %s, want newest first", i, got[i].Node.Title)
			}
		}
		if r.calls("Query") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("calls %v, want one Query", r.Extensions.DynamoDB.Calls)
		}
	})

	t.Run("AP4 AP5 AP6 user(id) and ticket(id) answer like node", func(t *testing.T) {
		var out struct {
			User struct {
				Name    string
				Tickets ticketConn
			}
		}
		r := a.ok(`query($id: ID!) { user(id: $id) { name tickets(first: 2) { edges { node { id } } } } }`,
			map[string]any{"id": userID(users[3])}, &out)
		want := d.tickets[users[3].ID]
		if out.User.Name != users[3].Name || len(out.User.Tickets.Edges) != 2 || out.User.Tickets.Edges[0].Node.ID != ticketID(want[len(want)-1]) {
			t.Fatalf("got %+v", out.User)
		}
		if r.calls("Query") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("calls %v, want the user and its newest tickets in one Query", r.Extensions.DynamoDB.Calls)
		}

		tk := want[0]
		var one struct {
			Ticket struct {
				Title    string
				Reporter struct{ Name string }
			}
		}
		r = a.ok(`query($id: ID!) { ticket(id: $id) { title reporter { name } } }`, map[string]any{"id": ticketID(tk)}, &one)
		if one.Ticket.Title != tk.Title || one.Ticket.Reporter.Name != users[3].Name {
			t.Fatalf("ticket %+v", one)
		}
		if r.calls("BatchGetItem") != 2 || r.Extensions.DynamoDB.TotalCalls != 2 {
			t.Fatalf("calls %v, want the ticket, then its reporter", r.Extensions.DynamoDB.Calls)
		}

		missing := model.Tickets.IDOf("01J00000000000000000000000")
		for _, c := range []struct{ query, id, code string }{
			{`query($id: ID!) { ticket(id: $id) { id } }`, missing, "NOT_FOUND"},
			{`query($id: ID!) { ticket(id: $id) { id } }`, userID(users[0]), "BAD_USER_INPUT"},
			{`query($id: ID!) { user(id: $id) { id } }`, ticketID(tk), "BAD_USER_INPUT"},
		} {
			r := a.query(c.query, map[string]any{"id": c.id})
			if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != c.code {
				t.Fatalf("%s with %s: errors %+v, want %s", c.query, c.id, r.Errors, c.code)
			}
		}
	})

	t.Run("unknown and malformed ids in nodes", func(t *testing.T) {
		missing := model.Organizations.IDOf("01J00000000000000000000000")
		r := a.query(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": []string{orgID(org), missing, "bogus"}})
		if string(r.Data) != `{"nodes":[{"id":"`+orgID(org)+`"},null,null]}` {
			t.Fatalf("data %s", r.Data)
		}
		codes := map[string]bool{}
		for _, e := range r.Errors {
			codes[e.Extensions["code"].(string)+pathString(e.Path)] = true
		}
		if !codes["NOT_FOUND nodes.1"] || !codes["BAD_USER_INPUT nodes.2"] || len(r.Errors) != 2 {
			t.Fatalf("errors %+v", r.Errors)
		}
	})
}

func pathString(p []any) string {
	var b strings.Builder
	for i, s := range p {
		if i == 0 {
			b.WriteString(" ")
		} else {
			b.WriteString(".")
		}
		switch v := s.(type) {
		case string:
			b.WriteString(v)
		case float64:
			b.WriteString(strconv.Itoa(int(v)))
		}
	}
	return b.String()
}

func TestOrganizationsAreListedByNameWithoutScan(t *testing.T) {
	a := newAPI(t, server.Config{})
	for _, n := range []string{"zeta", "Alpha", "mu", "Beta"} {
		a.ok(`mutation($n: String!) { createOrganization(input: {name: $n}) { id } }`, map[string]any{"n": n}, nil)
	}
	var names []string
	var after any
	for page := 0; ; page++ {
		var out struct {
			Organizations struct {
				Edges    []struct{ Node struct{ Name string } }
				PageInfo pageInfo
			}
		}
		r := a.ok(`query($after: String) { organizations(first: 3, after: $after) { edges { node { name } } pageInfo { hasNextPage endCursor } } }`, map[string]any{"after": after}, &out)
		if r.calls("Query") != 1 || r.calls("Scan") != 0 {
			t.Fatalf("calls %v", r.Extensions.DynamoDB.Calls)
		}
		for _, e := range out.Organizations.Edges {
			names = append(names, e.Node.Name)
		}
		if !out.Organizations.PageInfo.HasNextPage {
			break
		}
		after = *out.Organizations.PageInfo.EndCursor
	}
	if strings.Join(names, ",") != "Alpha,Beta,mu,zeta" {
		t.Fatalf("names %v, want case-insensitive name order", names)
	}
}

// A walk through a user's tickets two at a time sees every ticket exactly once, newest first.
func TestTicketPaginationWalk(t *testing.T) {
	a := newAPI(t, server.Config{})
	d := a.seedSaaS(1, 1, 9)
	user := d.users[d.orgs[0].ID][0]
	var seen []string
	var after any
	for pages := 1; ; pages++ {
		var out struct{ Node struct{ Tickets ticketConn } }
		r := a.ok(`query($id: ID!, $after: String) { node(id: $id) { ... on User { tickets(first: 2, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } } }`,
			map[string]any{"id": userID(user), "after": after}, &out)
		c := out.Node.Tickets
		if (after != nil) != c.PageInfo.HasPreviousPage {
			t.Fatalf("page %d: hasPreviousPage %v", pages, c.PageInfo.HasPreviousPage)
		}
		if n := len(c.Edges); n == 0 || *c.PageInfo.StartCursor != c.Edges[0].Cursor || *c.PageInfo.EndCursor != c.Edges[n-1].Cursor {
			t.Fatalf("page %d: cursors %+v", pages, c)
		}
		if r.calls("Query") > 1 {
			t.Fatalf("page %d cost %v", pages, r.Extensions.DynamoDB.Calls)
		}
		for _, e := range c.Edges {
			seen = append(seen, e.Node.ID)
		}
		if !c.PageInfo.HasNextPage {
			if pages != 5 {
				t.Fatalf("%d pages, want 5", pages)
			}
			break
		}
		after = *c.PageInfo.EndCursor
	}
	want := d.tickets[user.ID]
	if len(seen) != len(want) {
		t.Fatalf("saw %d tickets, want %d", len(seen), len(want))
	}
	for i := range want {
		if seen[i] != ticketID(want[len(want)-1-i]) {
			t.Fatalf("ticket %d out of order or repeated: %v", i, seen)
		}
	}
}

func TestTicketFilters(t *testing.T) {
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	a := newAPI(t, server.Config{}, func(c *repository.Config) { c.Clock = steppingClock(start, time.Minute) })
	d := a.seedSaaS(1, 1, 6) // org at +1m, user at +2m, tickets at +3m ... +8m
	user := d.users[d.orgs[0].ID][0]
	tks := d.tickets[user.ID]
	closed := saas.TicketClosed
	for _, i := range []int{1, 4} {
		if _, err := a.repo.UpdateTicket(t.Context(), tks[i].OrgID, tks[i].ID, saas.TicketPatch{Status: &closed}); err != nil {
			t.Fatal(err)
		}
	}
	titles := func(vars map[string]any) []string {
		t.Helper()
		vars["id"] = userID(user)
		var out struct{ Node struct{ Tickets ticketConn } }
		a.ok(`query($id: ID!, $status: TicketStatus, $after: Time, $before: Time, $first: Int) {
		  node(id: $id) { ... on User { tickets(first: $first, status: $status, createdAfter: $after, createdBefore: $before) { edges { node { id } } } } } }`, vars, &out)
		var ids []string
		for _, e := range out.Node.Tickets.Edges {
			for i, tk := range tks {
				if ticketID(tk) == e.Node.ID {
					ids = append(ids, string(rune('0'+i)))
				}
			}
		}
		return ids
	}
	at := func(i int) string { return tks[i].CreatedAt.Format(time.RFC3339Nano) }
	cases := []struct {
		name string
		vars map[string]any
		want string
	}{
		{"all newest first", map[string]any{}, "543210"},
		{"closed", map[string]any{"status": "CLOSED"}, "41"},
		{"open, one per page still fills the page", map[string]any{"status": "OPEN", "first": 3}, "532"},
		{"after is exclusive", map[string]any{"after": at(2)}, "543"},
		{"before is exclusive", map[string]any{"before": at(2)}, "10"},
		{"range", map[string]any{"after": at(0), "before": at(4)}, "321"},
		{"range and status", map[string]any{"after": at(0), "before": at(5), "status": "CLOSED"}, "41"},
		{"empty range", map[string]any{"after": at(3), "before": at(3)}, ""},
	}
	for _, c := range cases {
		if got := strings.Join(titles(c.vars), ""); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestCursorsAreTamperEvidentAndScoped(t *testing.T) {
	a := newAPI(t, server.Config{})
	d := a.seedSaaS(1, 3, 3)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	var users struct{ Organization struct{ Users userConn } }
	a.ok(`query($id: ID!) { organization(id: $id) { users(first: 1) { pageInfo { endCursor } } } }`, map[string]any{"id": orgID(org)}, &users)
	usersCursor := *users.Organization.Users.PageInfo.EndCursor
	var tickets struct{ Node struct{ Tickets ticketConn } }
	a.ok(`query($id: ID!) { node(id: $id) { ... on User { tickets(first: 1, status: OPEN) { pageInfo { endCursor } } } } }`, map[string]any{"id": userID(user)}, &tickets)
	openCursor := *tickets.Node.Tickets.PageInfo.EndCursor

	forged := []byte(usersCursor)
	forged[len(forged)/2] ^= 1
	ticketsQ := `query($id: ID!, $after: String, $status: TicketStatus) { node(id: $id) { ... on User { tickets(first: 1, after: $after, status: $status) { edges { node { id } } } } } }`
	for name, q := range map[string]struct {
		query string
		vars  map[string]any
	}{
		"forged":                                 {`query($id: ID!, $after: String) { organization(id: $id) { users(first: 1, after: $after) { edges { node { id } } } } }`, map[string]any{"id": orgID(org), "after": string(forged)}},
		"garbage":                                {`query($id: ID!, $after: String) { organization(id: $id) { users(first: 1, after: $after) { edges { node { id } } } } }`, map[string]any{"id": orgID(org), "after": "not-a-cursor"}},
		"users cursor on tickets":                {ticketsQ, map[string]any{"id": userID(user), "after": usersCursor}},
		"filtered cursor on the unfiltered list": {ticketsQ, map[string]any{"id": userID(user), "after": openCursor}},
		"another user's cursor":                  {ticketsQ, map[string]any{"id": userID(d.users[org.ID][1]), "after": openCursor, "status": "OPEN"}},
	} {
		r := a.query(q.query, q.vars)
		if c := r.code(t); c != "BAD_USER_INPUT" {
			t.Errorf("%s: code %q, want BAD_USER_INPUT", name, c)
		}
		if strings.Contains(r.Errors[0].Message, "ORG#") || strings.Contains(r.Errors[0].Message, "USER#") {
			t.Errorf("%s: message leaks keys: %q", name, r.Errors[0].Message)
		}
	}
	// The same cursor in its own list works.
	r := a.query(ticketsQ, map[string]any{"id": userID(user), "after": openCursor, "status": "OPEN"})
	if len(r.Errors) != 0 {
		t.Fatalf("own cursor refused: %+v", r.Errors)
	}
}
