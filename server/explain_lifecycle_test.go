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
