package server_test

import (
	"context"
	"fmt"
	"testing"

	"singletable/auth"
	"singletable/server"
)

// Explain prices every correction and removal: each explained as admin answers a plan (and makes
// no call), and running it then stays within the plan's calls and rounds.
func TestExplainBoundsCorrectionsAndRemovals(t *testing.T) {
	f := newTenants(t)
	for _, op := range lifecycleOps {
		if msg := checkAgainstPlan(f.a, op.query, op.vars(f, auth.RoleAdmin), false); msg != "" {
			t.Errorf("%s: %s", op.field, msg)
		}
	}
}

// The removals of tickets name the BatchWriteItem calls that sweep a history longer than one
// transaction, as their code makes them.
func TestExplainNamesTheSweptVersionsOfTicketRemovals(t *testing.T) {
	f := newTenants(t)
	for _, op := range lifecycleOps {
		if op.field != "deleteTicket" && op.field != "deleteUser" {
			continue
		}
		e := f.a.explain(op.query, op.vars(f, auth.RoleAdmin))
		if e.plan == nil {
			t.Fatalf("%s: no plan: %v", op.field, e.raw)
		}
		found := false
		for _, s := range e.plan.Steps {
			found = found || (s.Operation == "BatchWriteItem" && s.MaxCalls == nil)
		}
		if _, counted := e.plan.MaxCalls["BatchWriteItem"]; !found || !counted || e.plan.Bounded {
			t.Errorf("%s plans no BatchWriteItem for a long history:\n%s", op.field, planText(e.plan))
		}
	}
}

// A lookup of users or tickets reads their organization in the same BatchGetItem calls (a deleted
// organization hides them at once): a hundred users by ID, with their organization, take two
// calls, which the plan counts.
func TestExplainCountsTheOrganizationsOfLookedUpUsers(t *testing.T) {
	a := newAPI(t, server.Config{})
	org, err := a.repo.CreateOrganization(context.Background(), "Hundred")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 100 {
		u, err := a.repo.CreateUser(context.Background(), org.ID, fmt.Sprintf("User %d", i), fmt.Sprintf("u%d@hundred.example", i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, userID(u))
	}
	if msg := checkAgainstPlan(a, `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": ids}, false); msg != "" {
		t.Error(msg)
	}
}
