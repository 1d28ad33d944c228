package server_test

import (
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"

	"singletable/auth"
	"singletable/server"
)

// budgetOf is extensions.dynamodb.budgetRemaining of a raw answer (nil when absent).
func budgetOf(t *testing.T, r gqlResponse) *float64 {
	t.Helper()
	var out struct {
		Extensions struct {
			DynamoDB struct {
				BudgetRemaining *float64 `json:"budgetRemaining"`
			} `json:"dynamodb"`
		} `json:"extensions"`
	}
	if err := json.Unmarshal([]byte(r.raw), &out); err != nil {
		t.Fatalf("answer is not JSON: %v", err)
	}
	return out.Extensions.DynamoDB.BudgetRemaining
}

// A principal that spends its capacity budget is refused with 429 RATE_LIMITED, extensions.limit
// "capacity" and Retry-After before any DynamoDB call, its explains too; another principal,
// served meanwhile, is not affected; every answer says what is left of its principal's budget,
// and each refusal is counted by its reason.
func TestCapacityBudgetIsPerPrincipal(t *testing.T) {
	var mu sync.Mutex
	refused := map[string]int{}
	// 0.1 RCU per second: a burst of 1 RCU, which one read of the organizations and their users
	// spends (4 Queries of 0.5 RCU each: the bucket is at -1 after it).
	a := newAPI(t, server.Config{CapacityBudgetRCU: 0.1, OnRateLimited: func(reason string) {
		mu.Lock()
		refused[reason]++
		mu.Unlock()
	}})
	a.seedSaaS(3, 2, 1)
	const read = `{ organizations(first: 10) { edges { node { name users { edges { node { name } } } } } } }`
	alice := a.as(auth.Claims{Subject: "alice", Roles: []string{string(auth.RoleAdmin)}})
	bob := a.as(auth.Claims{Subject: "bob", Roles: []string{string(auth.RoleAdmin)}})

	var last gqlResponse
	for i := range 20 {
		last = alice.query(read, nil)
		if last.status == 429 {
			break
		}
		if len(last.Errors) > 0 {
			t.Fatalf("read %d: %+v", i, last.Errors)
		}
		if left := budgetOf(t, last); left == nil {
			t.Fatalf("read %d: no budgetRemaining in %s", i, last.raw)
		}
	}
	if last.status != 429 || last.code(t) != "RATE_LIMITED" || last.Errors[0].Extensions["limit"] != "capacity" {
		t.Fatalf("alice after spending her budget: %d %s", last.status, last.raw)
	}
	if ra := last.header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
	if strings.Contains(last.raw, `"data"`) || last.Extensions.DynamoDB != nil && last.Extensions.DynamoDB.TotalCalls != 0 {
		t.Fatalf("a refused operation ran: %s", last.raw)
	}
	if e := alice.explain(read, nil); e.status != 429 || e.plan != nil {
		t.Fatalf("alice's explain while she is over budget: %d %v", e.status, e.raw)
	}
	r := bob.query(read, nil)
	if r.status != 200 || len(r.Errors) > 0 {
		t.Fatalf("bob while alice is over budget: %d %s", r.status, r.raw)
	}
	// A full bucket of 1 RCU, debited what the read consumed (its reservation given back: the
	// bucket refills meanwhile, by 0.1 RCU a second).
	if left := budgetOf(t, r); left == nil || math.Abs(*left-(1-r.Extensions.DynamoDB.TotalCapacity)) > 0.05 {
		t.Fatalf("bob's budgetRemaining %v after one read of a budget of 1: %s", *left, r.raw)
	}
	mu.Lock()
	defer mu.Unlock()
	if refused[server.RefusedCapacity] != 2 || refused[server.RefusedRate] != 0 {
		t.Fatalf("refusals by reason %v, want 2 for capacity", refused)
	}
}

// With the budget off (0), nothing is refused for capacity and answers carry no budgetRemaining.
func TestCapacityBudgetOff(t *testing.T) {
	a := newAPI(t, server.Config{})
	a.seedSaaS(1, 1, 1)
	for range 5 {
		r := a.query(`{ organizations { edges { node { name } } } }`, nil)
		if r.status != 200 || budgetOf(t, r) != nil {
			t.Fatalf("%d %s", r.status, r.raw)
		}
	}
}
