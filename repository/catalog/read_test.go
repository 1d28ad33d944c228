package catalog_test

import (
	"context"
	"fmt"
	"testing"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/store/storetest"
)

// ProductWithInventory reads a product and the first page of its stock with one Query: the page
// is the plain list's (InventoryOfProduct), in its order, and its last cursor continues in the
// plain list. A product stocked beyond the page is read by key after the Query; a product
// without stock is its item alone; a missing product is NOT_FOUND.
func TestProductWithInventoryIsThePlainListsPage(t *testing.T) {
	repo := storetest.New(t)
	ctx := context.Background()
	stocked := func(name string, warehouses int) string {
		p, err := repo.CreateProduct(ctx, name, name)
		if err != nil {
			t.Fatal(err)
		}
		for i := range warehouses {
			w, err := repo.CreateWarehouse(ctx, fmt.Sprintf("%s-%d", name, i), "eu")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := repo.SetInventory(ctx, p.ID, w.ID, i+1); err != nil {
				t.Fatal(err)
			}
		}
		return p.ID
	}
	const first = 2
	for _, c := range []struct {
		warehouses int
		calls      string // by operation
	}{
		{0, "map[Query:1]"},
		{first, "map[Query:1]"},
		{first + 1, "map[Query:1]"},                // the page, one more, the product: Limit first+2 holds them
		{first + 2, "map[BatchGetItem:1 Query:1]"}, // the product lies beyond the Limit
		{first + 5, "map[BatchGetItem:1 Query:1]"},
	} {
		id := stocked(fmt.Sprintf("P%d", c.warehouses), c.warehouses)
		mctx, m := repository.WithMeter(ctx)
		p, page, err := repo.ProductWithInventory(mctx, id, first)
		if err != nil || p.ID != id {
			t.Fatalf("%d warehouses: %v, %v", c.warehouses, p, err)
		}
		if got := fmt.Sprint(m.Usage().Calls); got != c.calls {
			t.Errorf("%d warehouses: calls %s, want %s", c.warehouses, got, c.calls)
		}
		plain, err := repo.InventoryOfProduct(ctx, id, repository.PageArgs{First: first})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(quantities(page)) != fmt.Sprint(quantities(plain)) || page.HasNextPage != plain.HasNextPage || page.HasPreviousPage {
			t.Errorf("%d warehouses: page %v (next %v), the plain list's %v (next %v)", c.warehouses, quantities(page), page.HasNextPage, quantities(plain), plain.HasNextPage)
		}
		if !page.HasNextPage {
			continue
		}
		next, err := repo.InventoryOfProduct(ctx, id, repository.PageArgs{First: first, After: page.Cursors[len(page.Cursors)-1].String()})
		if err != nil {
			t.Fatalf("%d warehouses: the next page after the combined read's cursor: %v", c.warehouses, err)
		}
		if want := fmt.Sprint([]int{first + 1, first + 2}[:min(2, c.warehouses-first)]); fmt.Sprint(quantities(next)) != want {
			t.Errorf("%d warehouses: next page %v, want %v", c.warehouses, quantities(next), want)
		}
	}
	if _, _, err := repo.ProductWithInventory(ctx, "01J00000000000000000000009", first); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Errorf("a missing product: %v", err)
	}
}

// quantities are a page's stock quantities, in order.
func quantities(p repository.Page[*catalog.Inventory]) []int {
	out := make([]int, len(p.Items))
	for i, inv := range p.Items {
		out[i] = inv.Quantity
	}
	return out
}
