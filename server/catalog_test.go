package server_test

import (
	"context"
	"encoding/json"
	"testing"

	"singletable/auth"
	"singletable/graph/model"
	"singletable/server"
)

// catalogFixture is a product stocked in one warehouse and two customers, over the API.
type catalogFixture struct {
	a                  *api
	product, warehouse string // global IDs
	buyer, other       *api   // the customers' principals
	buyerID, otherID   string
	otherRaw           string // the other customer's id (the last created)
}

func newCatalogFixture(t *testing.T, stock int) catalogFixture {
	t.Helper()
	a := newAPI(t, server.Config{})
	var out struct {
		CreateProduct   struct{ ID string }
		CreateWarehouse struct{ ID string }
	}
	a.ok(`mutation { createProduct(input: {name: "Widget", sku: "W-1"}) { id }
		createWarehouse(input: {name: "North", region: "eu-north"}) { id } }`, nil, &out)
	f := catalogFixture{a: a, product: out.CreateProduct.ID, warehouse: out.CreateWarehouse.ID}
	a.ok(`mutation($p: ID!, $w: ID!, $q: Int!) { setInventory(input: {productId: $p, warehouseId: $w, quantity: $q}) { quantity } }`,
		map[string]any{"p": f.product, "w": f.warehouse, "q": stock}, nil)
	ctx := context.Background()
	for i, c := range []*string{&f.buyerID, &f.otherID} {
		cu, err := a.repo.CreateCustomer(ctx, []string{"Buyer", "Other"}[i], []string{"buyer@shop.example", "other@shop.example"}[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		*c, f.otherRaw = model.Customers.IDOf(cu.ID), cu.ID
	}
	f.buyer = a.as(auth.Claims{Subject: "buyer", Roles: []string{string(auth.RoleCustomer)}, Customer: f.buyerID})
	f.other = a.as(auth.Claims{Subject: "other", Roles: []string{string(auth.RoleCustomer)}, Customer: f.otherID})
	return f
}

const placeStocked = `mutation($c: ID!, $p: ID!, $w: ID!, $q: Int!, $k: String!) {
	placeOrder(input: {customerId: $c, idempotencyKey: $k, items: [{sku: "W-1", productName: "Widget", quantity: $q, unitPriceCents: 250, productId: $p, warehouseId: $w}]}) { id status } }`

func (f catalogFixture) place(as *api, customer string, q int, key string) gqlResponse {
	return as.query(placeStocked, map[string]any{"c": customer, "p": f.product, "w": f.warehouse, "q": q, "k": key})
}

type stockView struct {
	Product struct {
		TotalInventory int
		Inventory      []struct {
			Quantity  int
			Warehouse struct{ Name string }
			Product   struct{ Sku string }
		}
	}
}

func (f catalogFixture) stock() (stockView, gqlResponse) {
	var v stockView
	r := f.a.ok(`query($p: ID!) { product(id: $p) { totalInventory inventory { quantity warehouse { name } product { sku } } } }`,
		map[string]any{"p": f.product}, &v)
	return v, r
}

// An order line naming a product takes its stock; one that lacks stock is CONFLICT with reason
// "stock"; the product with its stock is one Query and its warehouses one BatchGetItem; cancelling
// gives the stock back.
func TestStockedOrdersOverGraphQL(t *testing.T) {
	f := newCatalogFixture(t, 3)
	var placed struct{ PlaceOrder struct{ ID, Status string } }
	r := f.place(f.buyer, f.buyerID, 2, "k1")
	if len(r.Errors) > 0 {
		t.Fatalf("placing an order: %+v", r.Errors)
	}
	jsonInto(t, r, &placed)
	r = f.place(f.buyer, f.buyerID, 2, "k2")
	if r.code(t) != "CONFLICT" || r.Errors[0].Extensions["reason"] != "stock" {
		t.Fatalf("an order beyond the stock: %+v", r.Errors)
	}
	v, resp := f.stock()
	if v.Product.TotalInventory != 1 || len(v.Product.Inventory) != 1 || v.Product.Inventory[0].Quantity != 1 ||
		v.Product.Inventory[0].Warehouse.Name != "North" || v.Product.Inventory[0].Product.Sku != "W-1" {
		t.Fatalf("stock after one order: %+v", v)
	}
	if q, b := resp.calls("Query"), resp.calls("BatchGetItem"); q != 1 || b != 1 {
		t.Errorf("product with its stock and warehouses: %d Query, %d BatchGetItem; want 1 (the product with its stock) and 1 (the warehouses)", q, b)
	}
	var cancelled struct{ CancelOrder struct{ Status string } }
	f.buyer.ok(`mutation($id: ID!) { cancelOrder(input: {id: $id}) { status } }`, map[string]any{"id": placed.PlaceOrder.ID}, &cancelled)
	if cancelled.CancelOrder.Status != "CANCELLED" {
		t.Fatalf("cancelled order: %+v", cancelled)
	}
	if v, _ := f.stock(); v.Product.TotalInventory != 3 || v.Product.Inventory[0].Quantity != 3 {
		t.Fatalf("stock after the cancellation: %+v", v)
	}
	r = f.buyer.query(`mutation($id: ID!) { cancelOrder(input: {id: $id}) { status } }`, map[string]any{"id": placed.PlaceOrder.ID})
	if r.code(t) != "CONFLICT" {
		t.Fatalf("cancelling twice: %+v", r.Errors)
	}
}

// A customer cancels only its own orders: another customer's is NOT_FOUND exactly as a missing
// one. A customer sees a product, not its stock or its order lines.
func TestCatalogForACustomer(t *testing.T) {
	f := newCatalogFixture(t, 5)
	var placed struct{ PlaceOrder struct{ ID string } }
	jsonInto(t, f.place(f.buyer, f.buyerID, 1, "k1"), &placed)
	foreign := f.other.query(`mutation($id: ID!) { cancelOrder(input: {id: $id}) { status } }`, map[string]any{"id": placed.PlaceOrder.ID})
	missing := f.other.query(`mutation($id: ID!) { cancelOrder(input: {id: $id}) { status } }`,
		map[string]any{"id": model.Orders.IDOf(f.otherRaw, "01J00000000000000000000002")})
	if foreign.code(t) != "NOT_FOUND" || missing.code(t) != "NOT_FOUND" || foreign.Errors[0].Message != missing.Errors[0].Message {
		t.Fatalf("another customer's order: %+v; a missing one: %+v", foreign.Errors, missing.Errors)
	}
	var seen struct{ Product struct{ Name string } }
	f.buyer.ok(`query($p: ID!) { product(id: $p) { name } }`, map[string]any{"p": f.product}, &seen)
	if seen.Product.Name != "Widget" {
		t.Fatalf("a customer's view of a product: %+v", seen)
	}
	for _, field := range []string{"inventory { quantity }", "orderItems { edges { node { quantity } } }"} {
		r := f.buyer.query(`query($p: ID!) { product(id: $p) { name `+field+` } }`, map[string]any{"p": f.product})
		if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != "FORBIDDEN" {
			t.Errorf("a customer asking for %s: %+v", field, r.Errors)
		}
	}
}

// A product's order lines come newest first, each with its order and customer.
func TestProductOrderItemsNewestFirst(t *testing.T) {
	f := newCatalogFixture(t, 10)
	var ids []string
	for i, key := range []string{"k1", "k2", "k3"} {
		var placed struct{ PlaceOrder struct{ ID string } }
		jsonInto(t, f.place(f.a, []string{f.buyerID, f.otherID, f.buyerID}[i], i+1, key), &placed)
		ids = append(ids, placed.PlaceOrder.ID)
	}
	var v struct {
		Product struct {
			OrderItems struct {
				Edges []struct {
					Node struct {
						Quantity int
						Order    struct {
							ID       string
							Customer struct{ Name string }
						}
						Product struct{ Sku string }
					}
				}
			}
		}
	}
	r := f.a.ok(`query($p: ID!) { product(id: $p) { orderItems(first: 2) { edges { node { quantity product { sku } order { id customer { name } } } } } } }`,
		map[string]any{"p": f.product}, &v)
	edges := v.Product.OrderItems.Edges
	if len(edges) != 2 || edges[0].Node.Order.ID != ids[2] || edges[1].Node.Order.ID != ids[1] ||
		edges[0].Node.Quantity != 3 || edges[1].Node.Order.Customer.Name != "Other" || edges[0].Node.Product.Sku != "W-1" {
		t.Fatalf("order items: %+v", v)
	}
	if q, b := r.calls("Query"), r.calls("BatchGetItem"); q != 1 || b != 3 {
		t.Errorf("%d Query, %d BatchGetItem; want 1 (the lines) and 3 (product, orders, customers)", q, b)
	}
}

// jsonInto unmarshals a response that must have succeeded into v.
func jsonInto(t *testing.T, r gqlResponse, v any) gqlResponse {
	t.Helper()
	if len(r.Errors) > 0 {
		t.Fatalf("unexpected errors: %+v", r.Errors)
	}
	if err := json.Unmarshal(r.Data, v); err != nil {
		t.Fatalf("data %s: %v", r.Data, err)
	}
	return r
}
