package maintenance

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/repotest"
)

// stockWorld is a customer, a product and a warehouse holding some of it, on a fresh table.
type stockWorld struct {
	repo                         *Maintenance
	customer, product, warehouse string
}

func newStockWorld(t *testing.T, stock int, throttle *repotest.Throttler) stockWorld {
	t.Helper()
	repo := New(repotest.NewRepo(t, func(c *repository.Config) {
		c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return throttle.Wrap(rt) }
	}))
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

// repsWithCustomers hires two account reps and gives them three customers.
func repsWithCustomers(t *testing.T, repo *Maintenance) ([]*hr.Employee, []*commerce.Customer) {
	t.Helper()
	ctx := context.Background()
	var reps []*hr.Employee
	d, err := repo.CreateLocation(ctx, hr.LocationInput{Country: "US", State: "CA", City: "SF", PostalCode: "94105", Address: "1 Main"})
	if err != nil {
		t.Fatal(err)
	}
	dept, err := repo.CreateDepartment(ctx, "Sales", d.Ref())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		e, _, err := repo.HireEmployee(ctx, hr.HireInput{DepartmentID: dept.ID, Name: fmt.Sprintf("Rep %d", i), Email: fmt.Sprintf("rep%d@corp.example", i), JobTitle: "Account rep"})
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, e)
	}
	var customers []*commerce.Customer
	for i := range 3 {
		c, err := repo.CreateCustomer(ctx, fmt.Sprintf("Buyer %d", i), fmt.Sprintf("b%d@shop.example", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		if c, err = repo.AssignAccountRep(ctx, c.ID, reps[min(i, 1)].ID); err != nil {
			t.Fatal(err)
		}
		customers = append(customers, c)
	}
	return reps, customers
}

// repTotal is rep's sales this month (TopAccountReps), zero when it has none.
func repTotal(t *testing.T, repo *Maintenance, rep string) commerce.RepTotal {
	t.Helper()
	now := time.Now()
	tops, err := repo.TopAccountReps(context.Background(), now, now, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tops {
		if r.RepID == rep {
			return r
		}
	}
	return commerce.RepTotal{RepID: rep}
}

// erasableWorld is the stock world with an account rep for its customer.
func erasableWorld(t *testing.T, stock int) (stockWorld, string) {
	t.Helper()
	w := newStockWorld(t, stock, &repotest.Throttler{})
	reps, _ := repsWithCustomers(t, w.repo)
	if _, err := w.repo.AssignAccountRep(context.Background(), w.customer, reps[0].ID); err != nil {
		t.Fatal(err)
	}
	return w, reps[0].ID
}

// Erasing a customer undoes its open orders exactly as cancelOrder does: the 7 units its open
// order took are back (inventory and the product's total), and its rep's month no longer counts
// that order; its shipped order stays counted (the sale happened), and a recount agrees.
func TestErasingACustomerCancelsItsOpenOrders(t *testing.T) {
	w, rep := erasableWorld(t, 20)
	ctx := context.Background()
	shipped, _, err := w.repo.PlaceOrder(ctx, w.customer, w.line(3), "shipped")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.repo.UpdateOrderStatus(ctx, w.customer, shipped.ID, commerce.OrderShipped); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.repo.PlaceOrder(ctx, w.customer, w.line(7), "open"); err != nil {
		t.Fatal(err)
	}
	before := repTotal(t, w.repo, rep)
	if q, total := w.stockNow(t); q != 10 || total != 10 || before.Orders < 2 {
		t.Fatalf("before the erasure: stock %d (total %d), rep %+v", q, total, before)
	}
	if err := w.repo.DeleteCustomer(ctx, w.customer); err != nil {
		t.Fatal(err)
	}
	if q, total := w.stockNow(t); q != 17 || total != 17 {
		t.Errorf("after the erasure: stock %d (total %d), want 17: the open order's 7 units back, the shipped order's 3 gone", q, total)
	}
	after := repTotal(t, w.repo, rep)
	if after.Orders != before.Orders-1 || after.TotalCents != before.TotalCents-700 {
		t.Errorf("the rep's month: %+v, was %+v: want the open order off and the shipped one kept", after, before)
	}
	if rep, err := w.repo.Recount(ctx, RecountOptions{Settle: 1}); err != nil || len(rep.Repairs) != 0 {
		t.Errorf("a recount after the erasure repaired %+v (err %v)", rep.Repairs, err)
	}
	if problems := integrityProblems(t, w.repo); len(problems) != 0 {
		t.Errorf("integrity: %v", problems)
	}
}

// A customer that keeps placing orders while it is erased does not keep the erasure in CONFLICT:
// the mark refuses its new orders (NOT_FOUND) and the erasure finishes, every unit back.
func TestErasureFinishesWhileOrdersKeepBeingPlaced(t *testing.T) {
	w, _ := erasableWorld(t, 1000)
	ctx := context.Background()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var placed atomic.Int64
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, _, err := w.repo.PlaceOrder(ctx, w.customer, w.line(1), fmt.Sprintf("g%d-%d", g, i)); err == nil {
					placed.Add(1)
				} else if apperr.CodeOf(err) == apperr.CodeNotFound {
					return
				}
			}
		}()
	}
	for placed.Load() < 8 {
		time.Sleep(5 * time.Millisecond)
	}
	err := w.repo.DeleteCustomer(ctx, w.customer)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("erasing a customer that keeps ordering: %v", err)
	}
	if q, total := w.stockNow(t); q != 1000 || total != 1000 {
		t.Errorf("stock after the erasure: %d (total %d), want 1000", q, total)
	}
	if _, _, err := w.repo.PlaceOrder(ctx, w.customer, w.line(1), "late"); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Errorf("an order after the erasure: %v", err)
	}
	if problems := integrityProblems(t, w.repo); len(problems) != 0 {
		t.Errorf("integrity: %v", problems)
	}
}

// A user that keeps filing tickets while it is removed with cascade: the removal finishes, and its
// later tickets are refused (NOT_FOUND for the reporter).
func TestCascadeRemovalFinishesWhileTicketsKeepBeingFiled(t *testing.T) {
	w := newStockWorld(t, 0, &repotest.Throttler{})
	repo, ctx := w.repo, context.Background()
	org, err := repo.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	u, err := repo.CreateUser(ctx, org.ID, "Filer", "filer@acme.example")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var filed atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := repo.CreateTicket(ctx, org.ID, u.ID, "t", "b"); err == nil {
					filed.Add(1)
				} else if apperr.CodeOf(err) == apperr.CodeNotFound {
					return
				}
			}
		}()
	}
	for filed.Load() < 8 {
		time.Sleep(5 * time.Millisecond)
	}
	err = repo.DeleteUser(ctx, org.ID, u.ID, true)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("removing a user that keeps filing tickets: %v", err)
	}
	if _, err := repo.CreateTicket(ctx, org.ID, u.ID, "late", "b"); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Errorf("a ticket after the removal: %v", err)
	}
	if problems := integrityProblems(t, repo); len(problems) != 0 {
		t.Errorf("integrity: %v", problems)
	}
	if rep, err := repo.Recount(ctx, RecountOptions{Settle: 1}); err != nil || len(rep.Repairs) != 0 {
		t.Errorf("a recount after the removal repaired %+v (err %v)", rep.Repairs, err)
	}
}
