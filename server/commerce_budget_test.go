package server_test

import (
	"testing"
	"time"

	"singletable/loaders/perparent"
	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/server"
)

const commerceTreeQuery = `query Tree($ids: [ID!]!) {
  nodes(ids: $ids) {
    ... on Customer {
      name
      orders(first: 3) { edges { node { id totalCents items { sku quantity unitPriceCents } customer { name } } } }
    }
  }
}`

type commerceTree struct {
	Nodes []struct {
		Name   string
		Orders orderConn
	}
}

// checkCommerceTree checks the data of commerceTreeQuery: each customer's orders newest first,
// each with its items in line order and its customer.
func checkCommerceTree(t *testing.T, d shopData, out commerceTree) {
	t.Helper()
	if len(out.Nodes) != len(d.customers) {
		t.Fatalf("got %d customers", len(out.Nodes))
	}
	for i, c := range out.Nodes {
		want := d.orders[d.customers[i].ID]
		if c.Name != d.customers[i].Name || len(c.Orders.Edges) != len(want) {
			t.Fatalf("customer %d: %q with %d orders", i, c.Name, len(c.Orders.Edges))
		}
		for j, e := range c.Orders.Edges {
			o := want[len(want)-1-j]
			if e.Node.ID != orderID(o) || e.Node.Customer.Name != c.Name || e.Node.TotalCents != o.TotalCents {
				t.Fatalf("customer %q order %d: %+v, want %s newest first", c.Name, j, e.Node, o.ID)
			}
			items := d.items[o.ID]
			if len(e.Node.Items) != len(items) {
				t.Fatalf("order %s has %d items, want %d", o.ID, len(e.Node.Items), len(items))
			}
			for k, it := range e.Node.Items {
				if it.SKU != items[k].SKU || it.Quantity != items[k].Quantity || it.UnitPriceCents != items[k].UnitPriceCents {
					t.Fatalf("order %s item %d: %+v, want %+v", o.ID, k, it, items[k])
				}
			}
		}
	}
}

// The call budget (no N+1) for the Commerce tree: 2 customers fetched by nodes(ids:),
// 3 orders each, 2 items per order, each order's items and customer. Each customer, its orders
// and their items come from ONE Query of its item collection (read ahead with the customer), and
// every order's customer and items are already primed: exactly 2 Query, no BatchGetItem (at most
// 2 allowed), no GetItem, no Scan, in one round.
func TestNestedCommerceQueryCallBudget(t *testing.T) {
	// 20 ms per call models the distance to a real region (see Usage.Rounds).
	a := newAPI(t, server.Config{}, repotest.WithLatency(20*time.Millisecond, 0))
	d := a.seedCommerce(2, 3, 2)
	var out commerceTree
	r := a.ok(commerceTreeQuery, map[string]any{"ids": []string{customerID(d.customers[0]), customerID(d.customers[1])}}, &out)
	checkCommerceTree(t, d, out)

	u := r.Extensions.DynamoDB
	t.Logf("DynamoDB calls: %v, rounds %d, capacity %.1f", u.Calls, u.Rounds, u.TotalCapacity)
	if got := r.calls("Query"); got != 2 {
		t.Errorf("Query calls = %d, want exactly 2 (items come with the orders)", got)
	}
	if got := r.calls("BatchGetItem"); got > 2 {
		t.Errorf("BatchGetItem calls = %d, want at most 2", got)
	}
	if r.calls("GetItem") != 0 || r.calls("Scan") != 0 {
		t.Errorf("GetItem = %d, Scan = %d, want none", r.calls("GetItem"), r.calls("Scan"))
	}
	if u.TotalCalls != r.calls("Query")+r.calls("BatchGetItem") {
		t.Errorf("unexpected operations: %v", u.Calls)
	}
	if u.Rounds != 1 {
		t.Errorf("rounds = %d, want 1 (both customers' collections side by side)", u.Rounds)
	}
}

// The same tree when the orders cannot be read ahead with their customer (a status filter): the
// customers are one BatchGetItem, each customer's orders one Query of GSI1 (without items), and
// the orders' items are looked up by key (customers are primed): 2 Query, well inside the
// budget's 8. The item lookups form one batch when both customers' order lists arrive within the
// key loader's wait (loaders.DefaultWait), else one batch per list: 2 or 3 BatchGetItem.
func TestNestedCommerceQueryCallBudgetWithStatusFilter(t *testing.T) {
	// Real round trips vary: with up to 15 ms of jitter the customers' GSI1 Queries return far
	// more than the key loader's window apart, and their items must still share one batch.
	// (Started by nodes(ids:) in one loop, the lists do not depend on gqlgen starting their
	// resolvers within the level loader's window either.)
	a := newAPI(t, server.Config{}, repotest.WithLatency(5*time.Millisecond, 15*time.Millisecond))
	d := a.seedCommerce(6, 3, 2)
	ids := make([]string, len(d.customers))
	for i, c := range d.customers {
		ids[i] = customerID(c)
	}
	var out commerceTree
	r := a.ok(`query Tree($ids: [ID!]!) {
	  nodes(ids: $ids) {
	    ... on Customer {
	      name
	      orders(first: 3, status: OPEN) { edges { node { id totalCents items { sku quantity unitPriceCents } customer { name } } } }
	    }
	  }
	}`, map[string]any{"ids": ids}, &out)
	checkCommerceTree(t, d, out)

	u := r.Extensions.DynamoDB
	t.Logf("DynamoDB calls: %v, rounds %d, capacity %.1f", u.Calls, u.Rounds, u.TotalCapacity)
	if r.calls("Query") != len(d.customers) || r.calls("BatchGetItem") != 2 || u.TotalCalls != len(d.customers)+2 {
		t.Errorf("calls %v, want %d Query (GSI1), then 1 BatchGetItem for the customers and 1 for every order's items", u.Calls, len(d.customers))
	}
	// nodes(ids:) starts the order lists itself, so their Queries run alongside the customers'
	// lookup: customers and orders, then items.
	if u.Rounds != 2 {
		t.Errorf("rounds = %d, want 2 (customers with the orders' Queries, then items)", u.Rounds)
	}
}

// One page of ordersByStatus costs exactly one Query per shard, run side by side, and the page's
// orders' items and customers are batched together: one BatchGetItem, or two when the ten sibling
// lookups straddle the key loader's wait (loaders.DefaultWait; seen under -race with every package
// testing in parallel), never one per order.
func TestOrdersByStatusPageCallBudget(t *testing.T) {
	const shards = 6
	a := newAPI(t, server.Config{}, repotest.WithLatency(20*time.Millisecond, 0), func(c *repository.Config) {
		c.OrderStatusShards = shards
	})
	a.seedCommerce(3, 4, 2)
	var out struct{ OrdersByStatus orderConn }
	r := a.ok(`{ ordersByStatus(status: OPEN, first: 5) { edges { node { id items { sku } customer { name } } } pageInfo { hasNextPage } } }`, nil, &out)
	u := r.Extensions.DynamoDB
	t.Logf("DynamoDB calls: %v, rounds %d, capacity %.1f", u.Calls, u.Rounds, u.TotalCapacity)
	if len(out.OrdersByStatus.Edges) != 5 || !out.OrdersByStatus.PageInfo.HasNextPage {
		t.Fatalf("page %+v", out.OrdersByStatus)
	}
	b := r.calls("BatchGetItem")
	if r.calls("Query") != shards || b < 1 || b > 2 || u.TotalCalls != shards+b {
		t.Errorf("calls %v, want exactly %d Query (one per shard) and 1 (at most 2) BatchGetItem", u.Calls, shards)
	}
	if u.Rounds != 2 {
		t.Errorf("rounds = %d, want 2 (all shards at once, then items and customers)", u.Rounds)
	}
}

// The per-parent baseline (loaders/perparent, benchmarks only) answers the commerce tree with the same data, resolving
// each field on its own: the customers, each order's customer and each item by GetItem, one
// Query per customer's orders, nothing read ahead or primed.
func TestCommercePerParentModeAnswersTheSame(t *testing.T) {
	batched := newAPI(t, server.Config{})
	perParent := newAPIOn(t, batched.repo, server.Config{Loaders: perparent.Options(), Planner: perparent.Planner{}})
	d := batched.seedCommerce(2, 3, 2)
	vars := map[string]any{"ids": []string{customerID(d.customers[0]), customerID(d.customers[1])}}
	a, b := batched.ok(commerceTreeQuery, vars, nil), perParent.ok(commerceTreeQuery, vars, nil)
	if string(a.Data) != string(b.Data) {
		t.Fatalf("different answers:\nbatched    %s\nper-parent %s", a.Data, b.Data)
	}
	want := map[string]int{"GetItem": 2 + 6 + 12, "Query": 2}
	if got := b.Extensions.DynamoDB.Calls; got["GetItem"] != want["GetItem"] || got["Query"] != want["Query"] || got["BatchGetItem"] != 0 {
		t.Fatalf("per-parent calls %v, want %v", got, want)
	}
}
