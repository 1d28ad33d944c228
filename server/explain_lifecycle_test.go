package server_test

import (
	"testing"

	"singletable/auth"
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
