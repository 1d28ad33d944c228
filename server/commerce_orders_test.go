package server_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"singletable/graph/model"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/repotest"
	"singletable/repository/store"
	"singletable/server"
)

const placeOrderMutation = `mutation($c: ID!, $key: String!, $items: [OrderItemInput!]!) {
  placeOrder(input: {customerId: $c, idempotencyKey: $key, items: $items}) {
    id status totalCents items { sku quantity unitPriceCents } customer { name }
  }
}`

func itemInputs(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"sku": fmt.Sprintf("SKU-%d", i+1), "productName": fmt.Sprintf("Product %d", i+1), "quantity": i + 1, "unitPriceCents": 100 * (i + 1)}
	}
	return out
}

func TestPlaceOrder(t *testing.T) {
	a := newAPI(t, server.Config{})
	d := a.seedCommerce(2, 0, 0)
	cust := customerID(d.customers[0])
	storedOrders := func(c *commerce.Customer) []string {
		t.Helper()
		var out struct{ Customer struct{ Orders orderConn } }
		a.ok(`query($id: ID!) { customer(id: $id) { orders(first: 100) { edges { node { id } } } } }`, map[string]any{"id": customerID(c)}, &out)
		return out.Customer.Orders.ids()
	}
	place := func(key string, items []map[string]any) (orderNode, gqlResponse) {
		t.Helper()
		var out struct{ PlaceOrder orderNode }
		r := a.query(placeOrderMutation, map[string]any{"c": cust, "key": key, "items": items})
		if len(r.Errors) == 0 {
			if err := jsonUnmarshal(r.Data, &out); err != nil {
				t.Fatal(err)
			}
		}
		return out.PlaceOrder, r
	}

	t.Run("places an OPEN order with its items and computed total in one transaction", func(t *testing.T) {
		o, r := place("first", itemInputs(3))
		if len(r.Errors) != 0 || o.Status != "OPEN" || o.TotalCents != 100+2*200+3*300 || len(o.Items) != 3 || o.Items[2].SKU != "SKU-3" || o.Customer.Name != d.customers[0].Name {
			t.Fatalf("order %+v, errors %+v", o, r.Errors)
		}
		// The result's items are primed from the write; only the customer is read.
		if r.calls("TransactWriteItems") != 1 || r.calls("BatchGetItem") != 1 || r.Extensions.DynamoDB.TotalCalls != 2 {
			t.Fatalf("calls %v", r.Extensions.DynamoDB.Calls)
		}
	})

	t.Run("the same idempotency key returns the same order and stores one", func(t *testing.T) {
		first, r := place("retry-me", itemInputs(2))
		if len(r.Errors) != 0 {
			t.Fatal(r.Errors)
		}
		again, r := place("retry-me", itemInputs(2))
		if len(r.Errors) != 0 || again.ID != first.ID || again.TotalCents != first.TotalCents || len(again.Items) != 2 {
			t.Fatalf("retry: %+v %+v, want %+v", again, r.Errors, first)
		}
		if n := strings.Count(strings.Join(storedOrders(d.customers[0]), ","), first.ID); n != 1 {
			t.Fatalf("order stored %d times", n)
		}
		// Same key, different order: CONFLICT, nothing stored.
		before := storedOrders(d.customers[0])
		r = a.query(placeOrderMutation, map[string]any{"c": cust, "key": "retry-me", "items": itemInputs(3)})
		if c := r.code(t); c != "CONFLICT" || r.Errors[0].Extensions["field"] != "idempotencyKey" {
			t.Fatalf("reuse for another order: %+v", r.Errors)
		}
		if after := storedOrders(d.customers[0]); !slices.Equal(before, after) {
			t.Fatalf("orders changed: %v → %v", before, after)
		}
		// The key is per customer: another customer may use it.
		var other struct{ PlaceOrder orderNode }
		a.ok(placeOrderMutation, map[string]any{"c": customerID(d.customers[1]), "key": "retry-me", "items": itemInputs(2)}, &other)
		if other.PlaceOrder.ID == first.ID {
			t.Fatal("another customer's order reused the key's order")
		}
	})

	t.Run("concurrent placements with one key store one order", func(t *testing.T) {
		const n = 6
		ids := make([]string, n)
		codes := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var out struct{ PlaceOrder orderNode }
				r := a.query(placeOrderMutation, map[string]any{"c": cust, "key": "burst", "items": itemInputs(2)})
				if len(r.Errors) > 0 {
					codes[i], _ = r.Errors[0].Extensions["code"].(string)
					return
				}
				_ = jsonUnmarshal(r.Data, &out)
				ids[i] = out.PlaceOrder.ID
			}()
		}
		wg.Wait()
		var placed string
		for i := range n {
			switch {
			case ids[i] != "" && placed == "":
				placed = ids[i]
			case ids[i] != "" && ids[i] != placed:
				t.Fatalf("two different orders for one key: %v", ids)
			case ids[i] == "" && codes[i] != "CONFLICT":
				t.Fatalf("placement %d failed with %q", i, codes[i])
			}
		}
		got, _ := place("burst", itemInputs(2)) // settles any placement that was told to retry
		if placed != "" && got.ID != placed {
			t.Fatalf("retry after the burst returned %s, burst placed %s", got.ID, placed)
		}
		if n := strings.Count(strings.Join(storedOrders(d.customers[0]), ","), got.ID); n != 1 {
			t.Fatalf("order stored %d times", n)
		}
	})

	t.Run("limits and bad input are BAD_USER_INPUT and store nothing", func(t *testing.T) {
		before := storedOrders(d.customers[0])
		r := a.query(placeOrderMutation, map[string]any{"c": cust, "key": "too-many", "items": itemInputs(repository.MaxOrderLines + 1)})
		if c := r.code(t); c != "BAD_USER_INPUT" || r.Errors[0].Extensions["field"] != "items" ||
			!strings.Contains(r.Errors[0].Message, "at most 97") || !strings.Contains(r.Errors[0].Message, "100") {
			t.Fatalf("98 lines: %+v", r.Errors)
		}
		if r.Extensions.DynamoDB.TotalCalls != 0 {
			t.Fatalf("calls %v", r.Extensions.DynamoDB.Calls)
		}
		maxLines, r := place("max-lines", itemInputs(repository.MaxOrderLines))
		if len(r.Errors) != 0 || len(maxLines.Items) != repository.MaxOrderLines || maxLines.Items[96].SKU != "SKU-97" {
			t.Fatalf("97 lines: %d items, %+v", len(maxLines.Items), r.Errors)
		}
		one := func(k, v any) []map[string]any {
			it := itemInputs(1)
			it[0][k.(string)] = v
			return it
		}
		for name, c := range map[string]struct {
			items []map[string]any
			key   string
			field string
		}{
			"no items":         {[]map[string]any{}, "k", "items"},
			"quantity 0":       {one("quantity", 0), "k", "items[0].quantity"},
			"quantity 10001":   {one("quantity", 10001), "k", "items[0].quantity"},
			"negative price":   {one("unitPriceCents", -1), "k", "items[0].unitPriceCents"},
			"empty sku":        {one("sku", " "), "k", "items[0].sku"},
			"long sku":         {one("sku", strings.Repeat("s", 65)), "k", "items[0].sku"},
			"empty product":    {one("productName", ""), "k", "items[0].productName"},
			"total over Int":   {[]map[string]any{{"sku": "gold", "productName": "Gold bar", "quantity": 2, "unitPriceCents": 2147483647}}, "k", "items"},
			"empty key":        {itemInputs(1), "  ", "idempotencyKey"},
			"key of 101 chars": {itemInputs(1), strings.Repeat("k", 101), "idempotencyKey"},
		} {
			r := a.query(placeOrderMutation, map[string]any{"c": cust, "key": c.key, "items": c.items})
			if code := r.code(t); code != "BAD_USER_INPUT" || r.Errors[0].Extensions["field"] != c.field {
				t.Errorf("%s: %+v, want BAD_USER_INPUT on %s", name, r.Errors, c.field)
			}
		}
		missing := model.Customers.IDOf("01J00000000000000000000000")
		if c := a.query(placeOrderMutation, map[string]any{"c": missing, "key": "k", "items": itemInputs(1)}).code(t); c != "NOT_FOUND" {
			t.Fatalf("unknown customer: %q", c)
		}
		after := storedOrders(d.customers[0])
		if len(after) != len(before)+1 || after[0] != maxLines.ID {
			t.Fatalf("orders %v → %v: only the 97-line order should be new", before, after)
		}
	})
}

func TestUpdateOrderStatus(t *testing.T) {
	a := newAPI(t, server.Config{}, func(c *repository.Config) { c.OrderStatusShards = 3 })
	d := a.seedCommerce(1, 3, 1)
	cust := d.customers[0]
	os := d.orders[cust.ID]
	update := func(o *commerce.Order, status string) gqlResponse {
		return a.query(`mutation($id: ID!, $s: OrderStatus!) { updateOrderStatus(input: {id: $id, status: $s}) { id status } }`, map[string]any{"id": orderID(o), "s": status})
	}
	byStatus := func(status string) []string {
		var out struct{ OrdersByStatus orderConn }
		a.ok(`query($s: OrderStatus!) { ordersByStatus(status: $s) { edges { node { id } } } }`, map[string]any{"s": status}, &out)
		return out.OrdersByStatus.ids()
	}
	customerByStatus := func(status string) []string {
		var out struct{ Customer struct{ Orders orderConn } }
		a.ok(`query($id: ID!, $s: OrderStatus) { customer(id: $id) { orders(status: $s) { edges { node { id } } } } }`, map[string]any{"id": customerID(cust), "s": status}, &out)
		return out.Customer.Orders.ids()
	}
	steps := []struct {
		order       int
		to, code    string
		wantCurrent string
	}{
		{0, "DELIVERED", "CONFLICT", "OPEN"},
		{0, "SHIPPED", "", ""},
		{0, "SHIPPED", "CONFLICT", "SHIPPED"},
		{0, "CANCELLED", "CONFLICT", "SHIPPED"},
		{0, "OPEN", "CONFLICT", "SHIPPED"},
		{0, "DELIVERED", "", ""},
		{0, "SHIPPED", "CONFLICT", "DELIVERED"},
		{1, "CANCELLED", "", ""},
		{1, "SHIPPED", "CONFLICT", "CANCELLED"},
		{1, "OPEN", "CONFLICT", "CANCELLED"},
		{2, "OPEN", "CONFLICT", "OPEN"},
	}
	for _, s := range steps {
		r := update(os[s.order], s.to)
		if s.code == "" {
			if len(r.Errors) != 0 || !strings.Contains(string(r.Data), `"status":"`+s.to+`"`) {
				t.Fatalf("order %d → %s: %s %+v", s.order, s.to, r.Data, r.Errors)
			}
			// The order read consistently, then its change and the customer's counters in one
			// transaction.
			if r.calls("BatchGetItem") != 1 || r.calls("TransactWriteItems") != 1 || r.Extensions.DynamoDB.TotalCalls != 2 {
				t.Fatalf("calls %v, want one BatchGetItem and one TransactWriteItems", r.Extensions.DynamoDB.Calls)
			}
			continue
		}
		if c := r.code(t); c != s.code || !strings.Contains(r.Errors[0].Message, "is "+s.wantCurrent) {
			t.Fatalf("order %d → %s: %+v, want %s naming %s", s.order, s.to, r.Errors, s.code, s.wantCurrent)
		}
		if r.calls("BatchGetItem") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("a refused change costs the read alone: calls %v", r.Extensions.DynamoDB.Calls)
		}
	}
	// Each order is listed under its new status only, in both indexes.
	for status, want := range map[string][]string{
		"OPEN": {orderID(os[2])}, "SHIPPED": nil, "DELIVERED": {orderID(os[0])}, "CANCELLED": {orderID(os[1])},
	} {
		if got := byStatus(status); !slices.Equal(got, want) {
			t.Errorf("ordersByStatus(%s) = %v, want %v", status, got, want)
		}
		if got := customerByStatus(status); !slices.Equal(got, want) {
			t.Errorf("customer orders(status: %s) = %v, want %v", status, got, want)
		}
	}
	if c := update(&commerce.Order{CustomerID: cust.ID, ID: "01J00000000000000000000000"}, "SHIPPED").code(t); c != "NOT_FOUND" {
		t.Fatalf("missing order: %q", c)
	}
	if c := a.query(`mutation($id: ID!) { updateOrderStatus(input: {id: $id, status: SHIPPED}) { id } }`, map[string]any{"id": customerID(cust)}).code(t); c != "BAD_USER_INPUT" {
		t.Fatalf("customer id as order id: %q", c)
	}
}

// A walk over ordersByStatus with several shards, three orders at a time, sees every order of the
// status exactly once, newest first; every page costs one Query per shard.
func TestOrdersByStatusWalk(t *testing.T) {
	const shards = 5
	start := time.Date(2026, 7, 1, 8, 0, 0, 0, time.UTC)
	a := newAPI(t, server.Config{}, func(c *repository.Config) {
		c.OrderStatusShards = shards
		c.Clock = steppingClock(start, time.Second)
	})
	d := a.seedCommerce(4, 12, 1) // 48 orders, placed one after another
	var open []*commerce.Order
	for _, c := range d.customers {
		for i, o := range d.orders[c.ID] {
			if i%4 == 3 { // 12 of them leave OPEN
				if _, err := a.repo.UpdateOrderStatus(t.Context(), c.ID, o.ID, commerce.OrderCancelled); err != nil {
					t.Fatal(err)
				}
				continue
			}
			open = append(open, o)
		}
	}
	slices.SortFunc(open, func(x, y *commerce.Order) int { return strings.Compare(y.ID, x.ID) })
	used := map[int]bool{}
	for _, o := range open {
		used[shardOf(o.ID, shards)] = true
	}
	if len(open) != 36 || len(used) < 3 {
		t.Fatalf("%d open orders over %d shards: want 36 over several shards", len(open), len(used))
	}

	walk := func(vars map[string]any) []string {
		t.Helper()
		var seen []string
		var after any
		for page := 1; ; page++ {
			vars["after"] = after
			var out struct{ OrdersByStatus orderConn }
			r := a.ok(`query($after: String, $pa: Time, $pb: Time) {
			  ordersByStatus(status: OPEN, first: 3, after: $after, placedAfter: $pa, placedBefore: $pb) {
			    edges { cursor node { id status } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`, vars, &out)
			c := out.OrdersByStatus
			if got := r.calls("Query"); got != shards || r.Extensions.DynamoDB.TotalCalls != shards {
				t.Fatalf("page %d: calls %v, want exactly %d Query", page, r.Extensions.DynamoDB.Calls, shards)
			}
			if (after != nil) != c.PageInfo.HasPreviousPage {
				t.Fatalf("page %d: hasPreviousPage %v", page, c.PageInfo.HasPreviousPage)
			}
			for i, e := range c.Edges {
				if e.Node.Status != "OPEN" {
					t.Fatalf("page %d: order %s is %s", page, e.Node.ID, e.Node.Status)
				}
				// Every edge's cursor holds the merge state at that edge: continuing from the
				// middle of a page gives the rest of it.
				if i == 0 && len(c.Edges) > 1 {
					var rest struct{ OrdersByStatus orderConn }
					mid := map[string]any{"after": e.Cursor, "pa": vars["pa"], "pb": vars["pb"]}
					a.ok(`query($after: String, $pa: Time, $pb: Time) { ordersByStatus(status: OPEN, first: 2, after: $after, placedAfter: $pa, placedBefore: $pb) { edges { node { id } } } }`, mid, &rest)
					if got, want := rest.OrdersByStatus.ids(), c.ids()[1:]; len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
						t.Fatalf("page %d: after the first edge got %v, want %v", page, got, want)
					}
				}
			}
			seen = append(seen, c.ids()...)
			if !c.PageInfo.HasNextPage {
				break
			}
			if len(c.Edges) != 3 {
				t.Fatalf("page %d has %d orders but claims a next page", page, len(c.Edges))
			}
			after = *c.PageInfo.EndCursor
		}
		return seen
	}
	want := func(orders []*commerce.Order) []string {
		var ids []string
		for _, o := range orders {
			ids = append(ids, orderID(o))
		}
		return ids
	}
	if got := walk(map[string]any{}); !slices.Equal(got, want(open)) {
		t.Fatalf("walk saw %d orders %v\nwant %d %v", len(got), got, len(open), want(open))
	}
	// Within a placed range (exclusive bounds): the orders strictly between the 30th and the 5th
	// newest.
	pa, pb := open[30].PlacedAt.Format(time.RFC3339Nano), open[5].PlacedAt.Format(time.RFC3339Nano)
	if got := walk(map[string]any{"pa": pa, "pb": pb}); !slices.Equal(got, want(open[6:30])) {
		t.Fatalf("ranged walk saw %v\nwant %v", got, want(open[6:30]))
	}
}

// shardOf mirrors the repository's shard function (FNV-1a of the order id mod N) so the test can
// check that its orders really spread over several shards.
func shardOf(id string, n int) int {
	h := uint32(2166136261)
	for i := 0; i < len(id); i++ {
		h ^= uint32(id[i])
		h *= 16777619
	}
	return int(h % uint32(n))
}

// A cursor of ordersByStatus is bound to N: after ORDER_STATUS_SHARDS changes, old cursors are
// refused rather than silently skipping or repeating orders.
func TestOrdersByStatusCursorIsBoundToShardCount(t *testing.T) {
	a := newAPI(t, server.Config{})
	a.seedCommerce(1, 3, 1)
	var out struct{ OrdersByStatus orderConn }
	a.ok(`{ ordersByStatus(status: OPEN, first: 1) { pageInfo { endCursor } } }`, nil, &out)
	cfg := repotest.Config(t, a.repo.Table())
	cfg.OrderStatusShards = 7
	other, err := store.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := newAPIOn(t, other, server.Config{})
	r := b.query(`query($after: String) { ordersByStatus(status: OPEN, first: 1, after: $after) { edges { node { id } } } }`, map[string]any{"after": *out.OrdersByStatus.PageInfo.EndCursor})
	if c := r.code(t); c != "BAD_USER_INPUT" {
		t.Fatalf("cursor of N=4 with N=7: %q", c)
	}
}
