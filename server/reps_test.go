package server_test

import (
	"testing"
	"time"

	"singletable/auth"
	"singletable/graph/model"
)

// Sales assign an account rep; the customer then sees its rep's name and nothing else of it;
// orders count toward the rep's sales, which the ranking and the rep's orders show.
func TestAccountRepsOverGraphQL(t *testing.T) {
	f := newCatalogFixture(t, 10)
	h := f.a.hr()
	rep := h.hire(h.department("Sales"), "Rita Rep", hireOpts{})
	sales := f.a.as(auth.Claims{Subject: "s", Roles: []string{string(auth.RoleSales)}})
	sales.ok(`mutation($c: ID!, $e: ID!) { assignAccountRep(input: {customerId: $c, employeeId: $e}) { id } }`,
		map[string]any{"c": f.buyerID, "e": model.Employees.ID(rep)}, nil)
	jsonInto(t, f.place(f.buyer, f.buyerID, 2, "k1"), &struct{}{})
	jsonInto(t, f.place(f.buyer, f.buyerID, 1, "k2"), &struct{}{})

	var mine struct {
		Customer struct{ AccountRep struct{ Name string } }
	}
	f.buyer.ok(`query($c: ID!) { customer(id: $c) { accountRep { name } } }`, map[string]any{"c": f.buyerID}, &mine)
	if mine.Customer.AccountRep.Name != "Rita Rep" {
		t.Fatalf("the customer's rep: %+v", mine)
	}
	r := f.buyer.query(`query($c: ID!) { customer(id: $c) { accountRep { name email } } }`, map[string]any{"c": f.buyerID})
	if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != "FORBIDDEN" {
		t.Fatalf("a customer asking for its rep's email: %+v", r.Errors)
	}

	var top struct {
		TopAccountReps []struct {
			TotalCents, Orders int
			Rep                struct {
				Name          string
				AccountOrders struct {
					Edges []struct{ Node struct{ TotalCents int } }
				}
				Accounts struct {
					Edges []struct{ Node struct{ Name string } }
				}
			}
		}
	}
	sales.ok(`query($from: Time!, $to: Time!) { topAccountReps(from: $from, to: $to) { totalCents orders rep { name
		accountOrders(status: OPEN, first: 5) { edges { node { totalCents } } } accounts { edges { node { name } } } } } }`, map[string]any{"from": time.Now().AddDate(0, -1, 0), "to": time.Now().AddDate(0, 1, 0)}, &top)
	got := top.TopAccountReps
	if len(got) != 1 || got[0].TotalCents != 750 || got[0].Orders != 2 || got[0].Rep.Name != "Rita Rep" ||
		len(got[0].Rep.AccountOrders.Edges) != 2 || got[0].Rep.AccountOrders.Edges[0].Node.TotalCents != 250 ||
		len(got[0].Rep.Accounts.Edges) != 1 || got[0].Rep.Accounts.Edges[0].Node.Name != "Buyer" {
		t.Fatalf("ranking: %+v", got)
	}
}
