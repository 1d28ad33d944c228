package server_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"singletable/graph/model"
	"singletable/repository"
	"singletable/repository/catalog"
)

// productStock is a product's stock as product(id) or node(id) answers it.
type productStock struct {
	Name      string
	Inventory []struct {
		Quantity  int
		Warehouse struct{ Name string }
	}
}

// A product asked for by ID with its stock is ONE Query of its partition (the stock and the
// product's own item, which sorts after it), by product(id) and by node(id) alike, as explain
// says, and one Query per product for nodes(ids:); the warehouses of the stock are the next level,
// one batch. A product with no stock, a missing product and a customer (who may not see stock)
// keep their answers, and the customer's read reads no stock.
func TestProductWithItsStockIsOneQuery(t *testing.T) {
	f := newCatalogFixture(t, 3)
	var south struct{ CreateWarehouse struct{ ID string } }
	f.a.ok(`mutation { createWarehouse(input: {name: "South", region: "eu-south"}) { id } }`, nil, &south)
	f.a.ok(`mutation($p: ID!, $w: ID!) { setInventory(input: {productId: $p, warehouseId: $w, quantity: 4}) { quantity } }`,
		map[string]any{"p": f.product, "w": south.CreateWarehouse.ID}, nil)
	vars := map[string]any{"p": f.product}
	byID := `query($p: ID!) { product(id: $p) { name inventory { quantity } } }`
	byNode := `query($p: ID!) { node(id: $p) { ... on Product { name inventory { quantity } } } }`
	for name, q := range map[string]string{"product(id)": byID, "node(id)": byNode} {
		var out struct{ Product, Node productStock }
		r := f.a.ok(q, vars, &out)
		got := out.Product
		if name == "node(id)" {
			got = out.Node
		}
		if got.Name != "Widget" || len(got.Inventory) != 2 || got.Inventory[0].Quantity+got.Inventory[1].Quantity != 7 {
			t.Errorf("%s: %+v", name, got)
		}
		if r.calls("Query") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 || r.Extensions.DynamoDB.Rounds != 1 {
			t.Errorf("%s: %v in %d rounds, want exactly one Query", name, r.Extensions.DynamoDB.Calls, r.Extensions.DynamoDB.Rounds)
		}
		e := f.a.explain(q, vars)
		if e.plan == nil || fmt.Sprint(e.plan.MaxCalls) != "map[Query:1]" || e.plan.MaxRounds != 1 {
			t.Errorf("%s: explain %s", name, e.raw["extensions"])
		} else if steps := stepsOf(e.plan); len(steps) != 1 || steps[0] != "1 AP24 Query "+map[string]string{"product(id)": "product", "node(id)": "node"}[name]+" 1" {
			t.Errorf("%s: steps %v", name, steps)
		}
	}

	// The warehouses of the stock are the next level: one batch, one round after the Query.
	const withWarehouses = `query($p: ID!) { product(id: $p) { name inventory { quantity warehouse { name } } } }`
	var out struct{ Product productStock }
	r := f.a.ok(withWarehouses, vars, &out)
	names := []string{out.Product.Inventory[0].Warehouse.Name, out.Product.Inventory[1].Warehouse.Name}
	slices.Sort(names)
	if fmt.Sprint(names) != "[North South]" || r.calls("Query") != 1 || r.calls("BatchGetItem") != 1 || r.Extensions.DynamoDB.Rounds != 2 {
		t.Errorf("with warehouses: %+v, %v in %d rounds", out.Product, r.Extensions.DynamoDB.Calls, r.Extensions.DynamoDB.Rounds)
	}
	if e := f.a.explain(withWarehouses, vars); e.plan == nil || e.plan.MaxCalls["Query"] != 1 || e.plan.MaxRounds != 2 ||
		within(e.plan, r.Extensions.DynamoDB.Calls, r.Extensions.DynamoDB.Rounds) != "" {
		t.Errorf("with warehouses: explain %s", e.raw["extensions"])
	}

	// A product with no stock: one Query, an empty list.
	var bare struct{ CreateProduct struct{ ID string } }
	f.a.ok(`mutation { createProduct(input: {name: "Bare", sku: "B-1"}) { id } }`, nil, &bare)
	var none struct{ Product productStock }
	r = f.a.ok(byID, map[string]any{"p": bare.CreateProduct.ID}, &none)
	if none.Product.Name != "Bare" || len(none.Product.Inventory) != 0 || r.calls("Query") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
		t.Errorf("a product without stock: %+v, %v", none.Product, r.Extensions.DynamoDB.Calls)
	}

	// nodes(ids:): each product with its stock, one Query each, in one round; no lookup by key.
	var both struct{ Nodes []productStock }
	r = f.a.ok(`query($ids: [ID!]!) { nodes(ids: $ids) { ... on Product { name inventory { quantity } } } }`,
		map[string]any{"ids": []string{f.product, bare.CreateProduct.ID}}, &both)
	if len(both.Nodes) != 2 || len(both.Nodes[0].Inventory) != 2 || both.Nodes[1].Name != "Bare" ||
		r.calls("Query") != 2 || r.Extensions.DynamoDB.TotalCalls != 2 || r.Extensions.DynamoDB.Rounds != 1 {
		t.Errorf("nodes: %+v, %v in %d rounds", both.Nodes, r.Extensions.DynamoDB.Calls, r.Extensions.DynamoDB.Rounds)
	}

	// A missing product is NOT_FOUND, as a lookup by key answers it.
	missing := map[string]any{"p": model.Products.IDOf("01J00000000000000000000009")}
	if r := f.a.query(byID, missing); r.code(t) != "NOT_FOUND" || r.Extensions.DynamoDB.TotalCalls != 1 {
		t.Errorf("a missing product: %+v, %v", r.Errors, r.Extensions.DynamoDB.Calls)
	}
	if r := f.a.query(`query($p: ID!) { product(id: $p) { name } }`, missing); r.code(t) != "NOT_FOUND" {
		t.Errorf("a missing product by key: %+v", r.Errors)
	}

	// A customer sees the product, not its stock, and its read reads no stock: the product by key.
	r = f.buyer.query(byID, vars)
	if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != "FORBIDDEN" || r.calls("Query") != 0 || r.calls("BatchGetItem") != 1 {
		t.Errorf("a customer asking for the stock: %+v, %v", r.Errors, r.Extensions.DynamoDB.Calls)
	}
	if e := f.buyer.explain(byID, vars); e.plan == nil || within(e.plan, r.Extensions.DynamoDB.Calls, r.Extensions.DynamoDB.Rounds) != "" {
		t.Errorf("a customer's explain: %s", e.raw["extensions"])
	}
}

// A product stocked in more warehouses than one page of its stock holds: the Query's page does
// not reach the product's own item, which is then read by key (one BatchGetItem, one round
// later), and the stock is the same page the plain list answers (the first warehouses by id).
func TestProductWithMoreStockThanAPage(t *testing.T) {
	f := newCatalogFixture(t, 1)
	ctx := context.Background()
	p, err := f.a.repo.CreateProduct(ctx, "Everywhere", "E-1")
	if err != nil {
		t.Fatal(err)
	}
	for i := range catalog.MaxWarehousesPerProduct + 2 {
		w, err := f.a.repo.CreateWarehouse(ctx, fmt.Sprintf("W%03d", i), "eu")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.a.repo.SetInventory(ctx, p.ID, w.ID, i+1); err != nil {
			t.Fatal(err)
		}
	}
	plain, err := f.a.repo.InventoryOfProduct(ctx, p.ID, repository.PageArgs{First: catalog.MaxWarehousesPerProduct})
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Product productStock }
	r := f.a.ok(`query($p: ID!) { product(id: $p) { name inventory { quantity } } }`, map[string]any{"p": model.Products.IDOf(p.ID)}, &out)
	if out.Product.Name != "Everywhere" || len(out.Product.Inventory) != len(plain.Items) {
		t.Fatalf("product %q with %d stock items, want %d", out.Product.Name, len(out.Product.Inventory), len(plain.Items))
	}
	for i, inv := range out.Product.Inventory {
		if inv.Quantity != plain.Items[i].Quantity {
			t.Fatalf("stock item %d: %d, the plain list's %d", i, inv.Quantity, plain.Items[i].Quantity)
		}
	}
	if r.calls("Query") != 1 || r.calls("BatchGetItem") != 1 || r.Extensions.DynamoDB.Rounds != 2 {
		t.Errorf("%v in %d rounds: want the Query, then the product by key", r.Extensions.DynamoDB.Calls, r.Extensions.DynamoDB.Rounds)
	}
}
