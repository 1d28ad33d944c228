package server_test

import (
	"testing"

	"singletable/auth"
	"singletable/graph/model"
)

// forbiddenAt reports whether r has a FORBIDDEN error whose path ends in field.
func forbiddenAt(r []gqlError, field string) bool {
	for _, e := range r {
		if len(e.Path) > 0 && e.Path[len(e.Path)-1] == field && e.Extensions["code"] == "FORBIDDEN" {
			return true
		}
	}
	return false
}

// One field policy, whatever the path: a customer reads no product's stock total, of its rep the
// id and name only, no warehouse (a line's, a lookup's, a list's); an explain refuses what running
// refuses, field policy included; sales read all of it.
func TestOneFieldPolicyOnEveryPath(t *testing.T) {
	f := newCatalogFixture(t, 10)
	h := f.a.hr()
	rep := h.hire(h.department("Sales"), "Rita Rep", hireOpts{})
	sales := f.a.as(auth.Claims{Subject: "s", Roles: []string{string(auth.RoleSales)}})
	sales.ok(`mutation($c: ID!, $e: ID!) { assignAccountRep(input: {customerId: $c, employeeId: $e}) { id } }`,
		map[string]any{"c": f.buyerID, "e": model.Employees.ID(rep)}, nil)
	var placed struct{ PlaceOrder struct{ ID string } }
	jsonInto(t, f.place(f.buyer, f.buyerID, 2, "k1"), &placed)

	const stock = `{ products(first: 5) { edges { node { sku totalInventory } } } }`
	if r := f.buyer.query(stock, nil); !forbiddenAt(r.Errors, "totalInventory") {
		t.Errorf("a customer's totalInventory: %s", r.raw)
	}
	if e := f.buyer.explain(stock, nil); !forbiddenAt(e.errors, "totalInventory") {
		t.Errorf("the explain of a customer's totalInventory: %+v", e.errors)
	}
	const repQ = `query($c: ID!) { customer(id: $c) { accountRep { id name createdAt } } }`
	r := f.buyer.query(repQ, map[string]any{"c": f.buyerID})
	if len(r.Errors) != 1 || !forbiddenAt(r.Errors, "createdAt") {
		t.Errorf("a customer's rep's id, name and createdAt: %s", r.raw)
	}
	const lines = `query($o: ID!) { node(id: $o) { ... on Order { items { sku warehouse { id name region } } } } }`
	if r := f.buyer.query(lines, map[string]any{"o": placed.PlaceOrder.ID}); !forbiddenAt(r.Errors, "warehouse") {
		t.Errorf("a customer's order line's warehouse: %s", r.raw)
	}
	if r := f.buyer.query(`query($w: ID!) { node(id: $w) { id } }`, map[string]any{"w": f.warehouse}); r.code(t) != "NOT_FOUND" {
		t.Errorf("a warehouse by node for a customer: %s", r.raw)
	}
	const inv = `query($p: ID!) { product(id: $p) { inventory { quantity } } }`
	if e := f.buyer.explain(inv, map[string]any{"p": f.product}); !forbiddenAt(e.errors, "inventory") {
		t.Errorf("the explain of a customer's product inventory: %+v", e.errors)
	}
	for _, q := range []string{stock, lines} {
		if r := sales.query(q, map[string]any{"o": placed.PlaceOrder.ID}); len(r.Errors) != 0 {
			t.Errorf("sales: %s", r.raw)
		}
	}
}
