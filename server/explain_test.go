package server_test

import (
	"fmt"
	"testing"
	"time"

	"singletable/auth"
	"singletable/repository/repotest"
	"singletable/server"
)

// stepsOf is a plan's steps as "round AP operation path calls", in order.
func stepsOf(p *plan) []string {
	var out []string
	for _, s := range p.Steps {
		ap, calls := "-", 0
		if s.AccessPattern != nil {
			ap = *s.AccessPattern
		}
		if s.MaxCalls != nil {
			calls = *s.MaxCalls
		}
		out = append(out, fmt.Sprintf("%d %s %s %s %d", s.Round, ap, s.Operation, s.Path, calls))
	}
	return out
}

// An explain answers the plan and runs nothing: no data, no DynamoDB call. The steps name the
// access pattern, operation, index and key condition of each read and its round; the bounds are
// those of full pages (4 users, each with 5 tickets, each with 3 versions), and the operation run
// on smaller data stays within them.
func TestExplainDescribesThePlanWithoutRunning(t *testing.T) {
	// Rounds are measured as chains of calls one after another: 30 ms per call keeps two lists
	// of one level, dispatched together, from forming a chain on a loaded machine.
	a := newAPI(t, server.Config{}, repotest.WithLatency(30*time.Millisecond, 0))
	d := a.seedSaaS(1, 3, 2)
	const q = `query($id: ID!) { organization(id: $id) { name users(first: 4) { totalCount edges { node { name
	  tickets(first: 5) { edges { node { title version history(first: 3) { edges { node { version } } } } } } } } } } }`
	vars := map[string]any{"id": orgID(d.orgs[0])}
	e := a.explain(q, vars)
	if e.status != 200 || e.plan == nil || e.calls != 0 || e.raw["data"] != nil || len(e.errors) != 0 {
		t.Fatalf("explain: %d calls %d %s", e.status, e.calls, e.raw)
	}
	want := []string{
		"1 AP2 Query organization 1",
		"2 AP5 Query organization.users.edges.node.tickets 4",
		"3 AP21 Query organization.users.edges.node.tickets.edges.node.history 20",
	}
	if got := stepsOf(e.plan); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("steps\n%v\nwant\n%v", got, want)
	}
	if e.plan.MaxCalls["Query"] != 25 || len(e.plan.MaxCalls) != 1 || e.plan.MaxRounds != 3 {
		t.Fatalf("bounds %v, %d rounds", e.plan.MaxCalls, e.plan.MaxRounds)
	}
	s := e.plan.Steps[1]
	if s.Index == nil || *s.Index != "GSI1" || s.KeyCondition != `GSI1PK = ORG#<o>#USER#<u> AND begins_with(GSI1SK, "TICKET#")` {
		t.Fatalf("the ticket lists' step: %+v", s)
	}
	r := a.ok(q, vars, nil)
	if over := within(e.plan, r.Extensions.DynamoDB.Calls, r.Extensions.DynamoDB.Rounds); over != "" || r.calls("Query") != 1+3+6 {
		t.Fatalf("ran %v in %d rounds; over the plan: %q", r.Extensions.DynamoDB.Calls, r.Extensions.DynamoDB.Rounds, over)
	}
}

// What execution refuses, explain refuses the same way, at the same paths, without a call: a
// root field outside the caller's roles (FORBIDDEN), an ID of another tenant (NOT_FOUND, as a
// missing one), an operation over the complexity limit (with its plan, so the caller sees why).
func TestExplainRefusesWhatExecutionRefuses(t *testing.T) {
	a := newAPI(t, server.Config{ComplexityLimit: 1000})
	d := a.seedSaaS(2, 1, 1)
	member := a.as(auth.Claims{Subject: "m", Roles: []string{string(auth.RoleOrgMember)}, Org: orgID(d.orgs[0])})
	other := d.users[d.orgs[1].ID][0]
	for _, c := range []struct {
		name, query string
		vars        map[string]any
		code        string
	}{
		{"a root field outside the roles", `{ departments { edges { node { name } } } }`, nil, "FORBIDDEN"},
		{"another tenant's user", `query($id: ID!) { user(id: $id) { name } }`, map[string]any{"id": userID(other)}, "NOT_FOUND"},
		{"another tenant's ticket", `query($id: ID!) { ticket(id: $id) { title } }`, map[string]any{"id": ticketID(d.tickets[other.ID][0])}, "NOT_FOUND"},
	} {
		e := member.explain(c.query, c.vars)
		r := member.query(c.query, c.vars)
		if e.calls != 0 || len(e.errors) != 1 || e.errors[0].Extensions["code"] != c.code || r.code(t) != c.code ||
			fmt.Sprint(e.errors[0].Path) != fmt.Sprint(r.Errors[0].Path) || r.Extensions.DynamoDB.TotalCalls != 0 {
			t.Errorf("%s: explain %v, execution %+v", c.name, e.raw, r.Errors)
		}
	}
	// 4 users × 5 tickets × 20 versions: 1 + 4 + 20 pages, 50 each, over 1000.
	const q = `{ organizations(first: 1) { edges { node { users(first: 4) { edges { node {
	  tickets(first: 5) { edges { node { history { edges { node { version } } } } } } } } } } } } }`
	e := a.explain(q, nil)
	r := a.query(q, nil)
	if len(e.errors) != 1 || e.errors[0].Extensions["code"] != "COMPLEXITY_LIMIT_EXCEEDED" || e.plan == nil || e.plan.Complexity <= 1000 ||
		r.code(t) != "COMPLEXITY_LIMIT_EXCEEDED" || r.Extensions.DynamoDB != nil && r.Extensions.DynamoDB.TotalCalls != 0 {
		t.Fatalf("over the complexity limit: explain %s; execution %+v", e.raw, r.Errors)
	}
}

// A ticket ID handed out before IDs carried the organization costs admin one Query of the
// ticket's partition before its read: the plan says so, and the operation stays within it.
func TestExplainPricesALegacyTicketID(t *testing.T) {
	a := newAPI(t, server.Config{})
	d := a.seedSaaS(1, 1, 1)
	tk := d.tickets[d.users[d.orgs[0].ID][0].ID][0]
	const q = `query($id: ID!) { ticket(id: $id) { title reporter { name } } }`
	vars := map[string]any{"id": legacyTicketID(tk.ID)}
	e := a.explain(q, vars)
	if e.plan == nil || len(e.errors) != 0 || e.plan.MaxCalls["Query"] != 1 || e.plan.MaxRounds < 2 {
		t.Fatalf("plan of a legacy ticket ID: %s", e.raw)
	}
	if got := stepsOf(e.plan); len(got) == 0 || got[0] != "1 AP6 Query ticket 1" {
		t.Fatalf("steps %v: the first is the Query that completes the ID", got)
	}
	r := a.ok(q, vars, nil)
	if over := within(e.plan, r.Extensions.DynamoDB.Calls, r.Extensions.DynamoDB.Rounds); over != "" || r.calls("Query") != 1 {
		t.Fatalf("ran %v in %d rounds; over the plan: %q\n%s", r.Extensions.DynamoDB.Calls, r.Extensions.DynamoDB.Rounds, over, planText(e.plan))
	}
}
