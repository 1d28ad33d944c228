package commerce

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"singletable/apperr"
	"singletable/repository"
)

const (
	smallestID = "00000000000000000000000000"
	largestID  = "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
)

// The customer's collection, read newest first, must yield the customer, then for each order,
// newest first, its items and then the order itself; the order range bounds must include every
// item of the orders at both ends and nothing of the neighbours.
func TestCustomerCollectionSortOrder(t *testing.T) {
	c := "01J00000000000000000000001"
	older, newer := "01J00000000000000000000002", "01J00000000000000000000003"
	keys := []string{ // ascending
		orderSK(smallestID),
		OrderKeyOf(c, older).SK,
		orderItemKey(c, older, 1).SK,
		orderItemKey(c, older, 2).SK,
		orderItemKey(c, older, repository.MaxOrderLines).SK,
		OrderKeyOf(c, newer).SK,
		orderItemKey(c, newer, 1).SK,
		orderItemKey(c, largestID, repository.MaxOrderLines).SK,
		orderRangeEnd(largestID),
		CustomerKeyOf(c).SK,
	}
	for i := 1; i < len(keys); i++ {
		if !(keys[i-1] < keys[i]) {
			t.Fatalf("%q must sort before %q", keys[i-1], keys[i])
		}
	}
	if !(orderItemKey(c, older, repository.MaxOrderLines).SK < orderRangeEnd(older)) || !(orderRangeEnd(older) < orderSK(newer)) {
		t.Fatal("orderRangeEnd(o) must cover o's items and stop before the next order")
	}
	if orderItemKey(c, older, 7).SK != "ORDER#"+older+"#ITEM#007" {
		t.Fatalf("item key %q", orderItemKey(c, older, 7).SK)
	}
}

func TestOrderItemKeys(t *testing.T) {
	o := &Order{ID: "01J00000000000000000000002", CustomerID: "01J00000000000000000000001", ItemCount: 3}
	keys := o.ItemKeys()
	if len(keys) != 3 || keys[0] != orderItemKey(o.CustomerID, o.ID, 1) || keys[2] != orderItemKey(o.CustomerID, o.ID, 3) {
		t.Fatalf("keys %v", keys)
	}
	it := &OrderItem{CustomerID: o.CustomerID, OrderID: o.ID, Line: 2}
	if it.Key() != keys[1] {
		t.Fatalf("item key %v, want %v", it.Key(), keys[1])
	}
}

func TestIDRange(t *testing.T) {
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	ms := func(p *time.Time) string { return repository.LowestIDAt(*p) }
	lo, hi, ok := repository.IDRange(nil, nil)
	if !ok || lo != smallestID || hi != largestID {
		t.Fatalf("unbounded: %q %q %v", lo, hi, ok)
	}
	// Exclusive bounds at millisecond precision.
	lo, hi, ok = repository.IDRange(at("2026-01-01T00:00:00.005Z"), at("2026-01-01T00:00:00.009Z"))
	if !ok || lo != ms(at("2026-01-01T00:00:00.006Z")) || hi != repository.HighestIDAt(*at("2026-01-01T00:00:00.008Z")) {
		t.Fatalf("range: %q %q", lo, hi)
	}
	// A bound inside a millisecond: after 5.5 ms starts at 6 ms; before 9.5 ms includes 9 ms.
	lo, hi, _ = repository.IDRange(at("2026-01-01T00:00:00.0055Z"), at("2026-01-01T00:00:00.0095Z"))
	if lo != ms(at("2026-01-01T00:00:00.006Z")) || hi != repository.HighestIDAt(*at("2026-01-01T00:00:00.009Z")) {
		t.Fatalf("sub-millisecond bounds: %q %q", lo, hi)
	}
	for name, r := range map[string][2]*time.Time{
		"equal bounds":     {at("2026-01-01T00:00:00Z"), at("2026-01-01T00:00:00Z")},
		"adjacent ms":      {at("2026-01-01T00:00:00.001Z"), at("2026-01-01T00:00:00.002Z")},
		"reversed":         {at("2026-02-01T00:00:00Z"), at("2026-01-01T00:00:00Z")},
		"before the epoch": {nil, at("1969-12-31T00:00:00Z")},
		"after the end":    {ptr(time.Date(10900, 1, 1, 0, 0, 0, 0, time.UTC)), nil},
	} {
		if _, _, ok := repository.IDRange(r[0], r[1]); ok {
			t.Errorf("%s: range should be empty", name)
		}
	}
}

func TestIDBefore(t *testing.T) {
	if _, ok := repository.IDBefore(smallestID); ok {
		t.Fatal("the smallest id has no predecessor")
	}
	for _, id := range []string{"00000000000000000000000001", "01J00000000000000000000010", largestID, "01KGEWPY8048WQ8M2CJVCZG0PG"} {
		before, ok := repository.IDBefore(id)
		if !ok || !repository.ValidID(before) || !(before < id) {
			t.Fatalf("idBefore(%q) = %q, %v", id, before, ok)
		}
		u := ulid.MustParseStrict(before)
		for i := len(u) - 1; i >= 0; i-- { // add one back
			u[i]++
			if u[i] != 0 {
				break
			}
		}
		if u.String() != id {
			t.Fatalf("idBefore(%q) = %q is not the immediate predecessor", id, before)
		}
	}
}

// An order's shard is a pure function of its id, within [0, N), and spreads ids evenly.
func TestOrderStatusShard(t *testing.T) {
	const n, ids = 5, 5000
	counts := make([]int, n)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	src := repository.NewIDSource()
	for i := range ids {
		id, err := src.NewID(now.Add(time.Duration(i) * time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		s := orderStatusShard(id, n)
		if s < 0 || s >= n || s != orderStatusShard(id, n) {
			t.Fatalf("shard %d of %s", s, id)
		}
		counts[s]++
	}
	for s, c := range counts {
		if c < ids/n*8/10 || c > ids/n*12/10 {
			t.Errorf("shard %d holds %d of %d ids: %v", s, c, ids, counts)
		}
	}
	if orderStatusShardPK(OrderOpen, 3) != "ORDERSTATUS#OPEN#3" {
		t.Fatal(orderStatusShardPK(OrderOpen, 3))
	}
}

func TestCleanOrderLines(t *testing.T) {
	line := OrderLine{SKU: " A-1 ", ProductName: " Apple ", Quantity: 3, UnitPriceCents: 250}
	lines, total, err := cleanOrderLines([]OrderLine{line, {SKU: "B", ProductName: "Free sample", Quantity: 1}})
	if err != nil || total != 750 || lines[0].SKU != "A-1" || lines[0].ProductName != "Apple" {
		t.Fatalf("%+v %d %v", lines, total, err)
	}
	many := make([]OrderLine, repository.MaxOrderLines+1)
	for i := range many {
		many[i] = line
	}
	if _, _, err := cleanOrderLines(many[:repository.MaxOrderLines]); err != nil {
		t.Fatalf("%d lines: %v", repository.MaxOrderLines, err)
	}
	_, _, err = cleanOrderLines(many)
	if e, ok := err.(*apperr.Error); !ok || e.Code != apperr.CodeBadUserInput || !strings.Contains(e.Message, "at most 97") || !strings.Contains(e.Message, "at most 100 writes") {
		t.Fatalf("%d lines: %v", len(many), err)
	}
	big := OrderLine{SKU: "G", ProductName: "Gold", Quantity: repository.MaxLineQuantity, UnitPriceCents: repository.MaxUnitPriceCents}
	for name, c := range map[string]struct {
		lines []OrderLine
		field string
	}{
		"none":           {nil, "items"},
		"quantity 0":     {[]OrderLine{{SKU: "a", ProductName: "a"}}, "items[0].quantity"},
		"price too high": {[]OrderLine{line, {SKU: "a", ProductName: "a", Quantity: 1, UnitPriceCents: repository.MaxUnitPriceCents + 1}}, "items[1].unitPriceCents"},
		"total too high": {[]OrderLine{big, big}, "items"},
		"control char":   {[]OrderLine{{SKU: "a\x00", ProductName: "a", Quantity: 1}}, "items[0].sku"},
	} {
		_, _, err := cleanOrderLines(c.lines)
		if e, ok := err.(*apperr.Error); !ok || e.Code != apperr.CodeBadUserInput || e.Field != c.field {
			t.Errorf("%s: %v, want BAD_USER_INPUT on %s", name, err, c.field)
		}
	}
}

// FuzzOrderIdempotencyKey: two (customer, key) pairs share a guard item exactly when they are
// equal, whatever the key contains: a key can neither reach another customer's guards nor
// another key's.
func FuzzOrderIdempotencyKey(f *testing.F) {
	f.Add("k", "k#")
	f.Add("a#b", "a%23b")
	f.Add("01J00000000000000000000002#x", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		c1, c2 := "01J00000000000000000000001", "01J00000000000000000000002"
		if (orderIdempotencyKey(c1, a) == orderIdempotencyKey(c1, b)) != (a == b) {
			t.Fatalf("keys %q and %q: guard equality differs from key equality", a, b)
		}
		if orderIdempotencyKey(c1, a) == orderIdempotencyKey(c2, b) {
			t.Fatalf("customer %s key %q and customer %s key %q share a guard", c1, a, c2, b)
		}
		if strings.Count(orderIdempotencyKey(c1, a).PK, repository.Delim) != 2 {
			t.Fatalf("key %q adds segments: %q", a, orderIdempotencyKey(c1, a).PK)
		}
	})
}

// FuzzCustomerEmailGuardKey: two customers' emails share a guard exactly when they are equal
// ignoring case and surrounding space.
func FuzzCustomerEmailGuardKey(f *testing.F) {
	f.Add("a@b.io", "A@B.io")
	f.Add("a#b@c.io", "a%23b@c.io")
	f.Fuzz(func(t *testing.T, a, b string) {
		// The guard folds with strings.ToLower (not EqualFold, whose Unicode folding differs).
		fa, fb := strings.ToLower(strings.TrimSpace(a)), strings.ToLower(strings.TrimSpace(b))
		same := fa == fb
		if (customerEmailGuardKey(a) == customerEmailGuardKey(b)) != same {
			t.Fatalf("emails %q and %q: equal guards %v, equal emails %v", a, b, !same, same)
		}
	})
}

// After DynamoDB's ten-minute ClientRequestToken window (simulated by another token, or none), a
// retry with the same idempotency key fails the guard's condition; the guard, returned with the
// failure, names the order already placed, which is returned; nothing more is stored. Within the
// window (same token, new order id) DynamoDB answers IdempotentParameterMismatch and the guard is
// read instead.
func TestPlaceOrderIdempotencyAfterTheTokenWindow(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	c, err := r.CreateCustomer(ctx, "Idem Potent", "idem@x.io", nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := []OrderLine{{SKU: "A", ProductName: "Apple", Quantity: 2, UnitPriceCents: 30}, {SKU: "B", ProductName: "Banana", Quantity: 1, UnitPriceCents: 20}}
	first, items, err := r.PlaceOrder(ctx, c.ID, lines, "key-1")
	if err != nil || first.TotalCents != 80 || len(items) != 2 {
		t.Fatalf("%+v %v", first, err)
	}
	metered := func(token string) (*Order, []*OrderItem, repository.Usage, error) {
		mctx, m := repository.WithMeter(ctx)
		o, items, err := r.placeOrder(mctx, c.ID, lines, "key-1", token)
		return o, items, m.Usage(), err
	}
	for name, token := range map[string]string{
		"within the window (same token)":       placeOrderToken(c.ID, "key-1"),
		"after the window (a new token)":       "a-token-dynamodb-has-never-seen",
		"token not honoured (no token at all)": "",
	} {
		o, items, u, err := metered(token)
		if err != nil || o.ID != first.ID || o.TotalCents != 80 || len(items) != 2 || items[0].SKU != "A" || items[1].SKU != "B" {
			t.Fatalf("%s: %+v %v", name, o, err)
		}
		wantQueries := 1 // the order with its items; the guard came back with the failed condition
		if token == placeOrderToken(c.ID, "key-1") {
			wantQueries = 2 // the guard is read after IdempotentParameterMismatch
		}
		// The customer is read first (its account rep), then the transaction.
		if u.Calls["BatchGetItem"] != 1 || u.Calls["TransactWriteItems"] != 1 || u.Calls["Query"] != wantQueries || u.TotalCalls != 2+wantQueries {
			t.Fatalf("%s: calls %v, want 1 BatchGetItem, 1 TransactWriteItems and %d Query", name, u.Calls, wantQueries)
		}
	}
	// The same key for other lines is CONFLICT, on either path.
	for _, token := range []string{placeOrderToken(c.ID, "key-1"), "another-fresh-token"} {
		_, _, err := r.placeOrder(ctx, c.ID, lines[:1], "key-1", token)
		if e, ok := err.(*apperr.Error); !ok || e.Code != apperr.CodeConflict || e.Field != "idempotencyKey" {
			t.Fatalf("reuse for other lines: %v", err)
		}
	}
	page, _, err := r.OrdersOfCustomer(ctx, c.ID, OrderFilter{}, repository.PageArgs{First: 10})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != first.ID {
		t.Fatalf("stored orders %+v %v: want exactly the first", page.Items, err)
	}
}

// Orders with many items: a page still holds `first` complete orders with all their items, the
// Query continues past its first Limit as needed, and the cursors continue at the next order.
func TestOrdersWithManyItemsArePagedWhole(t *testing.T) {
	r := newLocalRepo(t, repository.Config{})
	ctx := context.Background()
	c, err := r.CreateCustomer(ctx, "Bulk Buyer", "bulk@x.io", nil)
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{1, 40, 2, 97, 5, 30, 1}
	var placed []*Order
	for i, n := range sizes {
		lines := make([]OrderLine, n)
		for j := range lines {
			lines[j] = OrderLine{SKU: fmt.Sprintf("S%d", j+1), ProductName: "P", Quantity: 1, UnitPriceCents: 1}
		}
		o, _, err := r.PlaceOrder(ctx, c.ID, lines, fmt.Sprint("k", i))
		if err != nil {
			t.Fatal(err)
		}
		placed = append(placed, o)
	}
	var after string
	seen := 0
	for page := 0; ; page++ {
		mctx, m := repository.WithMeter(ctx)
		p, items, err := r.OrdersOfCustomer(mctx, c.ID, OrderFilter{}, repository.PageArgs{First: 2, After: after})
		if err != nil {
			t.Fatal(err)
		}
		byOrder := map[string]int{}
		for _, it := range items {
			byOrder[it.OrderID]++
		}
		for _, o := range p.Items {
			want := placed[len(placed)-1-seen]
			if o.ID != want.ID || byOrder[o.ID] != want.ItemCount || o.ItemCount != sizes[len(placed)-1-seen] {
				t.Fatalf("page %d: order %s with %d items, want %s with %d", page, o.ID, byOrder[o.ID], want.ID, want.ItemCount)
			}
			seen++
		}
		if len(byOrder) != len(p.Items) {
			t.Fatalf("page %d: items of %d orders for %d orders", page, len(byOrder), len(p.Items))
		}
		t.Logf("page %d: %d orders, %d items, %v", page, len(p.Items), len(items), m.Usage().Calls)
		if q := m.Usage().Calls["Query"]; q > 2 {
			t.Fatalf("page %d took %d Query calls", page, q)
		}
		if !p.HasNextPage {
			break
		}
		after = p.Cursors[len(p.Cursors)-1].String()
	}
	if seen != len(sizes) {
		t.Fatalf("saw %d orders, want %d", seen, len(sizes))
	}
	// Read ahead with the customer: the same first page.
	cu, p, items, err := r.CustomerWithOrders(ctx, c.ID, 3)
	if err != nil || cu.ID != c.ID || len(p.Items) != 3 || !p.HasNextPage || len(items) != 1+30+5 {
		t.Fatalf("customer with orders: %v %d orders %d items %v", cu, len(p.Items), len(items), err)
	}
	if _, _, _, err := r.CustomerWithOrders(ctx, "01J00000000000000000000000", 3); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("missing customer: %v", err)
	}
}

// The sample data loads, and its orders are on the shards of the configured N.
func TestCommerceSampleItems(t *testing.T) {
	items, err := CommerceSampleItems(3)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, it := range items {
		types[repository.StringAttr(it, repository.AttrType)]++
		if repository.StringAttr(it, repository.AttrType) == TypeOrder {
			id := repository.StringAttr(it, "id")
			want := orderStatusShardPK(OrderStatus(repository.StringAttr(it, "status")), orderStatusShard(id, 3))
			if repository.StringAttr(it, repository.AttrGSI3PK) != want {
				t.Fatalf("order %s on %s, want %s", id, repository.StringAttr(it, repository.AttrGSI3PK), want)
			}
		}
	}
	if types[TypeCustomer] != 3 || types[TypeOrder] != 12 || types[TypeOrderIdempotency] != 12 || types[TypeOrderItem] < 12 {
		t.Fatalf("sample types %v", types)
	}
}

func ptr[T any](v T) *T { return &v }
