package server_test

import (
	"strings"
	"testing"

	"singletable/auth"
	"singletable/changefeed"
	"singletable/server"
)

// Explain of a subscription answers its per-event plan (the changed ticket from the stream's
// image, its reporter through the loaders), and the refusals subscribing would answer: a role
// the subscription does not list (FORBIDDEN), an organization outside the caller's scope
// (NOT_FOUND).
func TestExplainPlansSubscriptionsAndRefusesWhatSubscribingRefuses(t *testing.T) {
	a := newAPI(t, server.Config{})
	d := a.seedSaaS(2, 1, 0)
	mine, theirs := d.orgs[0], d.orgs[1]
	e := a.as(adminClaims).explain(ticketSubscription, map[string]any{"org": orgID(mine)})
	if e.plan == nil || len(e.errors) > 0 || e.plan.MaxCalls["BatchGetItem"] < 1 || len(e.plan.Steps) == 0 || e.calls != 0 {
		t.Fatalf("explain of ticketChanged: %+v errors %+v calls %d", e.plan, e.errors, e.calls)
	}
	if !strings.HasPrefix(e.plan.Steps[0].Path, "ticketChanged.ticket.reporter") {
		t.Fatalf("step %+v, want the reporter of the event's ticket", e.plan.Steps[0])
	}
	member := a.as(auth.Claims{Subject: "member", Roles: []string{string(auth.RoleOrgMember)}, Org: orgID(mine)})
	if e := member.explain(ticketSubscription, map[string]any{"org": orgID(theirs)}); len(e.errors) != 1 || e.errors[0].Extensions["code"] != "NOT_FOUND" {
		t.Fatalf("a member's explain of another organization's tickets: %+v", e.errors)
	}
	customer := a.as(auth.Claims{Subject: "customer", Roles: []string{string(auth.RoleCustomer)}, Customer: "Q3VzdG9tZXI6MDFBUlozTkRFS1RTVjRSUkZGUTY5RzVGQVY"})
	if e := customer.explain(`subscription { employeeChanged { kind employee { name } } }`, nil); len(e.errors) != 1 || e.errors[0].Extensions["code"] != "FORBIDDEN" {
		t.Fatalf("a customer's explain of employeeChanged: %+v", e.errors)
	}
}

// A subscription is priced like a query when it opens: a selection over the complexity limit is
// refused with COMPLEXITY_LIMIT_EXCEEDED.
func TestASubscriptionOverTheComplexityLimitIsRefused(t *testing.T) {
	a := newLiveAPI(t, server.Config{ComplexityLimit: 40})
	d := a.seedSaaS(1, 0, 0)
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", `subscription($org: ID!) { ticketChanged(organizationId: $org) { ticket { organization { users(first: 50) { edges { node { name } } } } } } }`,
		map[string]any{"org": orgID(d.orgs[0])})
	errs, completed := ws.collectUntilComplete("1", 5, waitFor)
	if len(errs) != 1 || !completed || !strings.Contains(errs[0], "COMPLEXITY_LIMIT_EXCEEDED") {
		t.Fatalf("a subscription over the limit: %v (completed %v)", errs, completed)
	}
}

// Each event's reads are debited from the principal's capacity budget; once it is spent the
// subscription ends with RATE_LIMITED, extensions.limit "capacity", then complete.
func TestSubscriptionEventsSpendTheCapacityBudget(t *testing.T) {
	a, _ := newLiveAPIWithHubOptions(t, server.Config{CapacityBudgetRCU: 0.05}, changefeed.Options{})
	d := a.seedSaaS(1, 1, 0)
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	ws := a.dialWS(adminToken(t))
	ws.subscribe("1", ticketSubscription, map[string]any{"org": orgID(org)})
	for i := range 4 {
		if _, err := a.repo.CreateTicket(t.Context(), org.ID, user.ID, "Spend "+string(rune('a'+i)), "b"); err != nil {
			t.Fatal(err)
		}
	}
	errs, completed := ws.collectUntilComplete("1", 10, waitFor)
	if len(errs) != 1 || !completed || !strings.Contains(errs[0], `"code":"RATE_LIMITED"`) || !strings.Contains(errs[0], `"limit":"capacity"`) {
		t.Fatalf("events past the budget: %v (completed %v), want one RATE_LIMITED capacity then complete", errs, completed)
	}
}
