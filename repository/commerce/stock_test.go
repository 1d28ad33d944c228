package commerce_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/maintenance"
	"singletable/repository/repotest"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
)

// stockWorld is a customer, a product and a warehouse holding some of it, on a fresh table.
type stockWorld struct {
	repo                         *store.Store
	customer, product, warehouse string
}

func newStockWorld(t *testing.T, stock int, throttle *repotest.Throttler) stockWorld {
	t.Helper()
	repo := storetest.New(t, func(c *repository.Config) {
		c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return throttle.Wrap(rt) }
	})
	ctx := context.Background()
	c, err := repo.CreateCustomer(ctx, "Buyer", "buyer@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := repo.CreateProduct(ctx, "Widget", "W-1")
	if err != nil {
		t.Fatal(err)
	}
	w, err := repo.CreateWarehouse(ctx, "North", "eu-north")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.SetInventory(ctx, p.ID, w.ID, stock); err != nil {
		t.Fatal(err)
	}
	return stockWorld{repo: repo, customer: c.ID, product: p.ID, warehouse: w.ID}
}

func (w stockWorld) line(qty int) []commerce.OrderLine {
	return []commerce.OrderLine{{SKU: "W-1", ProductName: "Widget", Quantity: qty, UnitPriceCents: 100, ProductID: w.product, WarehouseID: w.warehouse}}
}

// stockNow is the stock item's quantity and the product's totalInventory, read consistently.
func (w stockWorld) stockNow(t *testing.T) (quantity, total int) {
	t.Helper()
	inv, _ := catalog.InventoryKey(w.product, w.warehouse)
	prod, _ := catalog.ProductKey(w.product)
	found, err := w.repo.BatchGet(context.Background(), []repository.Key{inv, prod})
	if err != nil {
		t.Fatal(err)
	}
	return found[inv].(*catalog.Inventory).Quantity, found[prod].(*catalog.Product).TotalInventory
}

// raceOrders places n single-unit orders at once and returns the orders placed and the errors
// of the others.
func (w stockWorld) raceOrders(t *testing.T, n int) ([]*commerce.Order, []error) {
	var (
		mu     sync.Mutex
		placed []*commerce.Order
		failed []error
		wg     sync.WaitGroup
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, _, err := w.repo.PlaceOrder(context.Background(), w.customer, w.line(1), fmt.Sprintf("race-%d", i))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed = append(failed, err)
				return
			}
			placed = append(placed, o)
		}()
	}
	wg.Wait()
	return placed, failed
}

// Fifty orders of one unit race for a stock of twenty: exactly twenty are placed, the stock ends
// at zero and the product's total with it, and every other order is CONFLICT with reason "stock"
// and wrote nothing (the customer counts twenty open orders). Cancelling orders gives their stock
// back, and a recount finds every total and counter exact. With and without one call in three
// throttled.
func TestStockIsNeverOversold(t *testing.T) {
	for _, every := range []int{0, 3} {
		t.Run(fmt.Sprintf("throttle every %d", every), func(t *testing.T) {
			th := &repotest.Throttler{}
			w := newStockWorld(t, 20, th)
			th.Throttle(every)
			placed, failed := w.raceOrders(t, 50)
			th.Throttle(0)
			if len(placed) != 20 || len(failed) != 30 {
				t.Fatalf("placed %d, failed %d; want 20 and 30 (errors %v)", len(placed), len(failed), failed)
			}
			for _, err := range failed {
				var e *apperr.Error
				if !errors.As(err, &e) || e.Code != apperr.CodeConflict || e.Reason != "stock" {
					t.Fatalf("a refused order: %v; want CONFLICT with reason stock", err)
				}
			}
			if q, total := w.stockNow(t); q != 0 || total != 0 {
				t.Fatalf("stock %d, total %d after the race; want 0 and 0", q, total)
			}
			assertOpenOrders(t, w, 20)
			for _, o := range placed[:5] {
				if _, err := w.repo.CancelOrder(context.Background(), w.customer, o.ID); err != nil {
					t.Fatal(err)
				}
			}
			if q, total := w.stockNow(t); q != 5 || total != 5 {
				t.Fatalf("stock %d, total %d after 5 cancellations; want 5 and 5", q, total)
			}
			assertOpenOrders(t, w, 15)
			rep, err := w.repo.Recount(context.Background(), maintenance.RecountOptions{Settle: 1})
			if err != nil || len(rep.Repairs) != 0 {
				t.Fatalf("a recount after the race repaired %v (err %v): the totals drifted", rep.Repairs, err)
			}
		})
	}
}

func assertOpenOrders(t *testing.T, w stockWorld, want int) {
	t.Helper()
	k, _ := commerce.CustomerKey(w.customer)
	found, err := w.repo.BatchGet(context.Background(), []repository.Key{k})
	if err != nil {
		t.Fatal(err)
	}
	if got := found[k].(*commerce.Customer).OpenOrders; got != want {
		t.Fatalf("open orders %d; want %d", got, want)
	}
}
