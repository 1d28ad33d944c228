package commerce_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/maintenance"
	"singletable/repository/repotest"
	"singletable/repository/store"
	"singletable/repository/store/storetest"
)

// Orders placed for a rep's customers count toward the rep's sales of their month, concurrent
// orders and cancellations included; the ranking reads them back, one Query per month. A rep's
// accounts and orders are listed from the indexes, a status filter still filling its page. With
// and without one call in three throttled.
func TestAccountRepsRankedBySales(t *testing.T) {
	for _, every := range []int{0, 3} {
		t.Run(fmt.Sprintf("throttle every %d", every), func(t *testing.T) { testRepsRanked(t, every) })
	}
}

func testRepsRanked(t *testing.T, every int) {
	th := &repotest.Throttler{}
	repo := storetest.New(t, func(c *repository.Config) {
		c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return th.Wrap(rt) }
	})
	ctx := context.Background()
	reps, customers := repsWithCustomers(t, repo)
	// Rep 0 has customer 0; rep 1 customers 1 and 2. Twelve orders of 100 cents each at once,
	// then four of rep 1's cancelled at once.
	th.Throttle(every)
	raceRepOrders(t, repo, customers, reps[1].ID)
	th.Throttle(0)
	now := time.Now()
	top, err := repo.TopAccountReps(ctx, now.AddDate(0, -1, 0), now, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []commerce.RepTotal{{RepID: reps[1].ID, TotalCents: 400, Orders: 4}, {RepID: reps[0].ID, TotalCents: 400, Orders: 4}}
	if reps[0].ID < reps[1].ID {
		want[0], want[1] = want[1], want[0]
	}
	if fmt.Sprint(top) != fmt.Sprint(want) {
		t.Fatalf("ranking %v; want %v", top, want)
	}
	accounts, err := repo.AccountsOfRep(ctx, reps[1].ID, repository.PageArgs{First: 10})
	if err != nil || len(accounts.Items) != 2 || accounts.Items[0].Name != "Buyer 1" {
		t.Fatalf("rep 1's accounts: %+v, %v", accounts.Items, err)
	}
	open := commerce.OrderOpen
	page, err := repo.OrdersOfRep(ctx, reps[1].ID, commerce.OrderFilter{Status: &open}, repository.PageArgs{First: 3})
	if err != nil || len(page.Items) != 3 || !page.HasNextPage {
		t.Fatalf("rep 1's open orders (4 of its 8), a page of 3: %d orders, next %v, %v", len(page.Items), page.HasNextPage, err)
	}
	for i, o := range page.Items {
		if o.Status != open || i > 0 && o.ID > page.Items[i-1].ID {
			t.Fatalf("page %+v: not open orders newest first", page.Items)
		}
	}
	assertRepSalesRecount(t, repo, reps[0].ID, now)
}

// raceRepOrders places twelve orders of 100 cents, one per customer in turn, at once, then
// cancels four of rep's at once.
func raceRepOrders(t *testing.T, repo *store.Store, customers []*commerce.Customer, rep string) {
	t.Helper()
	ctx := context.Background()
	var (
		mu     sync.Mutex
		placed = map[string][]*commerce.Order{}
		wg     sync.WaitGroup
	)
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := customers[i%3]
			o, _, err := repo.PlaceOrder(ctx, c.ID, []commerce.OrderLine{{SKU: "S", ProductName: "P", Quantity: 1, UnitPriceCents: 100}}, fmt.Sprintf("k%d", i))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			placed[c.AccountRepID] = append(placed[c.AccountRepID], o)
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, o := range placed[rep][:4] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := repo.CancelOrder(ctx, o.CustomerID, o.ID); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

// repsWithCustomers hires two reps and makes rep 0 the account rep of customer 0 and rep 1 of
// customers 1 and 2.
func repsWithCustomers(t *testing.T, repo *store.Store) ([]*hr.Employee, []*commerce.Customer) {
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

// assertRepSalesRecount checks that -recount finds the reps' sales exact, repairs a month that
// drifted (and nothing else), and then finds nothing to do.
func assertRepSalesRecount(t *testing.T, repo *store.Store, rep string, now time.Time) {
	t.Helper()
	ctx := context.Background()
	if rep, err := repo.Recount(ctx, maintenance.RecountOptions{Settle: 1}); err != nil || len(rep.Repairs) != 0 {
		t.Fatalf("a recount after the race repaired %v (err %v)", rep.Repairs, err)
	}
	if err := commerce.SetRepSales(ctx, repo.Commerce, rep, now.UTC().Format("2006-01"), 1, 99); err != nil {
		t.Fatal(err)
	}
	fixed, err := repo.Recount(ctx, maintenance.RecountOptions{Settle: 1})
	if err != nil || len(fixed.Repairs) != 2 || fixed.Repairs[0].Now != 400 || fixed.Repairs[1].Now != 4 {
		t.Fatalf("the recount of a drifted month: %+v (err %v)", fixed.Repairs, err)
	}
	if again, err := repo.Recount(ctx, maintenance.RecountOptions{Settle: 1}); err != nil || len(again.Repairs) != 0 {
		t.Fatalf("a second recount repaired %v (err %v)", again.Repairs, err)
	}
}
