package server_test

import (
	"strings"
	"testing"
	"time"

	"singletable/auth"
	"singletable/graph/model"
	"singletable/repository/commerce"
	"singletable/server"
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

// A stock change is visible to inventoryChanged: an order taking from the stock, and a
// cancellation giving it back, each an event with the product's total before and after.
func TestInventoryChangedDeliversStockChanges(t *testing.T) {
	a := newLiveAPI(t, server.Config{})
	ctx := t.Context()
	p, err := a.repo.CreateProduct(ctx, "Widget", "W-1")
	if err != nil {
		t.Fatal(err)
	}
	w, err := a.repo.CreateWarehouse(ctx, "North", "eu")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.repo.SetInventory(ctx, p.ID, w.ID, 5); err != nil {
		t.Fatal(err)
	}
	c, err := a.repo.CreateCustomer(ctx, "Buyer", "buyer@shop.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	ws := a.dialWS(tokenFor(t, auth.Claims{Subject: "sales", Roles: []string{string(auth.RoleSales)}}))
	ws.subscribe("1", `subscription($p: ID!) { inventoryChanged(productId: $p) { kind previousTotalInventory product { totalInventory } } }`,
		map[string]any{"p": model.Products.ID(p)})
	time.Sleep(200 * time.Millisecond)
	o, _, err := a.repo.PlaceOrder(ctx, c.ID, []commerce.OrderLine{{SKU: "W-1", ProductName: "Widget", Quantity: 2, UnitPriceCents: 100, ProductID: p.ID, WarehouseID: w.ID}}, "k")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.repo.CancelOrder(ctx, c.ID, o.ID); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`{"inventoryChanged":{"kind":"UPDATED","previousTotalInventory":5,"product":{"totalInventory":3}}}`,
		`{"inventoryChanged":{"kind":"UPDATED","previousTotalInventory":3,"product":{"totalInventory":5}}}`,
	} {
		e, m, ok := ws.nextEvent(waitFor)
		// The product's creation and the setInventory, if still on their way, come first.
		for ok && (strings.Contains(string(e.Data), `"previousTotalInventory":0`) || strings.Contains(string(e.Data), `"CREATED"`)) {
			e, m, ok = ws.nextEvent(waitFor)
		}
		if !ok || string(e.Data) != want {
			t.Fatalf("inventory event %s (%+v), want %s", e.Data, m, want)
		}
	}
}

// updateEmployee over GraphQL: a new job title is found by employeesByJobTitle at once, and the
// old job is in jobHistory.
func TestUpdateEmployeeOverGraphQL(t *testing.T) {
	a := newAPI(t, server.Config{})
	h := a.hr()
	e := h.hire(h.department("Eng"), "Ann", hireOpts{title: "Engineer"})
	var out struct {
		UpdateEmployee struct {
			JobTitle, Name string
			JobHistory     struct {
				Edges []struct {
					Node struct{ JobTitle, DepartmentName string }
				}
			}
		}
		EmployeesByJobTitle struct {
			Edges []struct{ Node struct{ Name string } }
		}
	}
	a.ok(`mutation($id: ID!) { updateEmployee(input: {id: $id, jobTitle: "Lead"}) { jobTitle name jobHistory { edges { node { jobTitle departmentName } } } } }`,
		map[string]any{"id": model.Employees.ID(e)}, &out)
	a.ok(`{ employeesByJobTitle(jobTitle: "Lead") { edges { node { name } } } }`, nil, &out)
	u := out.UpdateEmployee
	if u.JobTitle != "Lead" || u.Name != "Ann" || len(u.JobHistory.Edges) != 1 || u.JobHistory.Edges[0].Node.JobTitle != "Engineer" ||
		u.JobHistory.Edges[0].Node.DepartmentName != "Eng" || len(out.EmployeesByJobTitle.Edges) != 1 {
		t.Fatalf("after the update: %+v", out)
	}
}
