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
	"singletable/repository/repotest"
	"singletable/server"
)

type addressOut struct {
	Label, Line1, City, Country string
	Line2, State, PostalCode    *string
}

func TestCommerceAccessPatterns(t *testing.T) {
	start := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	a := newAPI(t, server.Config{}, func(c *repository.Config) { c.Clock = steppingClock(start, time.Minute) })
	d := a.seedCommerce(3, 5, 2)
	cust := d.customers[1]
	orders := d.orders[cust.ID] // oldest first

	t.Run("AP7 customers by name, one Query per page", func(t *testing.T) {
		var names []string
		var after any
		for {
			var out struct {
				Customers struct {
					Edges    []struct{ Node struct{ Name string } }
					PageInfo pageInfo
				}
			}
			r := a.ok(`query($after: String) { customers(first: 2, after: $after) { edges { node { name } } pageInfo { hasNextPage endCursor } } }`, map[string]any{"after": after}, &out)
			if r.calls("Query") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
				t.Fatalf("calls %v", r.Extensions.DynamoDB.Calls)
			}
			for _, e := range out.Customers.Edges {
				names = append(names, e.Node.Name)
			}
			if !out.Customers.PageInfo.HasNextPage {
				break
			}
			after = *out.Customers.PageInfo.EndCursor
		}
		if strings.Join(names, ",") != "Customer A,Customer B,Customer C" {
			t.Fatalf("names %v", names)
		}
	})

	t.Run("AP15 customer by id with addresses is one batched key lookup", func(t *testing.T) {
		c, err := a.repo.CreateCustomer(t.Context(), "Addressed", "addressed@shop.example", []repository.MailingAddress{
			{Label: "Home", Line1: "1 Main St", Line2: "Apt 2", City: "Springfield", State: "IL", PostalCode: "62701", Country: "US"},
			{Label: "Cabin", Line1: "Lakeside", City: "Nowhere", Country: "CA"},
		})
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Customer struct {
				Name             string
				MailingAddresses []addressOut
			}
		}
		r := a.ok(`query($id: ID!) { customer(id: $id) { name mailingAddresses { label line1 line2 city state postalCode country } } }`, map[string]any{"id": customerID(c)}, &out)
		if r.calls("BatchGetItem") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("calls %v, want one BatchGetItem", r.Extensions.DynamoDB.Calls)
		}
		got := out.Customer.MailingAddresses
		if len(got) != 2 || got[0].Label != "Home" || *got[0].Line2 != "Apt 2" || *got[0].PostalCode != "62701" ||
			got[1].Label != "Cabin" || got[1].Line2 != nil || got[1].State != nil || got[1].PostalCode != nil || got[1].Country != "CA" {
			t.Fatalf("addresses %+v", got)
		}
	})

	t.Run("AP16 AP17 customer with its orders and their items is ONE Query", func(t *testing.T) {
		for _, q := range []string{
			`query($id: ID!) { customer(id: $id) { name orders(first: 2) { edges { cursor node { id totalCents items { sku quantity unitPriceCents } customer { name } } } pageInfo { hasNextPage hasPreviousPage endCursor } } } }`,
			`query($id: ID!) { customer: node(id: $id) { ... on Customer { name orders(first: 2) { edges { cursor node { id totalCents items { sku quantity unitPriceCents } customer { name } } } pageInfo { hasNextPage hasPreviousPage endCursor } } } } }`,
		} {
			var out struct {
				Customer struct {
					Name   string
					Orders orderConn
				}
			}
			r := a.ok(q, map[string]any{"id": customerID(cust)}, &out)
			if r.calls("Query") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
				t.Fatalf("calls %v, want exactly one Query", r.Extensions.DynamoDB.Calls)
			}
			got := out.Customer.Orders
			if out.Customer.Name != cust.Name || !slices.Equal(got.ids(), []string{orderID(orders[4]), orderID(orders[3])}) ||
				!got.PageInfo.HasNextPage || got.PageInfo.HasPreviousPage {
				t.Fatalf("got %+v", out.Customer)
			}
			n := got.Edges[0].Node
			if n.Customer.Name != cust.Name || len(n.Items) != 2 || n.Items[0].SKU != "SKU-1" || n.Items[1].SKU != "SKU-2" ||
				n.TotalCents != 1*100+2*200 || n.Items[1].Quantity != 2 || n.Items[1].UnitPriceCents != 200 {
				t.Fatalf("order %+v", n)
			}
		}
	})

	t.Run("AP16 paging walk sees every order once, newest first", func(t *testing.T) {
		var seen []string
		var after any
		for page := 1; ; page++ {
			var out struct{ Customer struct{ Orders orderConn } }
			r := a.ok(`query($id: ID!, $after: String) { customer(id: $id) { orders(first: 2, after: $after) { edges { cursor node { id items { sku } } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`,
				map[string]any{"id": customerID(cust), "after": after}, &out)
			c := out.Customer.Orders
			if (after != nil) != c.PageInfo.HasPreviousPage || *c.PageInfo.StartCursor != c.Edges[0].Cursor || *c.PageInfo.EndCursor != c.Edges[len(c.Edges)-1].Cursor {
				t.Fatalf("page %d: %+v", page, c)
			}
			// The first page is read ahead with the customer; later pages batch the customer and
			// read the orders with their items in one Query.
			if q := r.calls("Query"); q != 1 || r.calls("BatchGetItem") > 1 {
				t.Fatalf("page %d cost %v", page, r.Extensions.DynamoDB.Calls)
			}
			for _, e := range c.Edges {
				if len(e.Node.Items) != 2 {
					t.Fatalf("order %s has items %+v", e.Node.ID, e.Node.Items)
				}
			}
			seen = append(seen, c.ids()...)
			if !c.PageInfo.HasNextPage {
				if page != 3 {
					t.Fatalf("%d pages, want 3", page)
				}
				break
			}
			after = *c.PageInfo.EndCursor
		}
		var want []string
		for i := len(orders) - 1; i >= 0; i-- {
			want = append(want, orderID(orders[i]))
		}
		if !slices.Equal(seen, want) {
			t.Fatalf("saw %v, want %v", seen, want)
		}
	})

	t.Run("AP16 status and placed range filters", func(t *testing.T) {
		for _, i := range []int{1, 3} {
			if _, err := a.repo.UpdateOrderStatus(t.Context(), cust.ID, orders[i].ID, repository.OrderShipped); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := a.repo.UpdateOrderStatus(t.Context(), cust.ID, orders[3].ID, repository.OrderDelivered); err != nil {
			t.Fatal(err)
		}
		at := func(i int) string { return orders[i].PlacedAt.Format(time.RFC3339Nano) }
		list := func(vars map[string]any) (string, gqlResponse) {
			t.Helper()
			vars["id"] = customerID(cust)
			var out struct{ Customer struct{ Orders orderConn } }
			r := a.ok(`query($id: ID!, $status: OrderStatus, $after: Time, $before: Time, $first: Int) {
			  customer(id: $id) { orders(first: $first, status: $status, placedAfter: $after, placedBefore: $before) { edges { node { id status items { sku } } } } } }`, vars, &out)
			var idx []string
			for _, e := range out.Customer.Orders.Edges {
				for i, o := range orders {
					if orderID(o) == e.Node.ID {
						idx = append(idx, fmt.Sprint(i))
						if len(e.Node.Items) != 2 {
							t.Fatalf("order %d items %+v", i, e.Node.Items)
						}
					}
				}
			}
			return strings.Join(idx, ""), r
		}
		cases := []struct {
			name string
			vars map[string]any
			want string
		}{
			{"all newest first", map[string]any{}, "43210"},
			{"open", map[string]any{"status": "OPEN"}, "420"},
			{"shipped", map[string]any{"status": "SHIPPED"}, "1"},
			{"delivered", map[string]any{"status": "DELIVERED"}, "3"},
			{"open, one per page", map[string]any{"status": "OPEN", "first": 1}, "4"},
			{"after is exclusive", map[string]any{"after": at(2)}, "43"},
			{"before is exclusive", map[string]any{"before": at(2)}, "10"},
			{"range", map[string]any{"after": at(0), "before": at(4)}, "321"},
			{"range and status", map[string]any{"after": at(0), "before": at(4), "status": "OPEN"}, "2"},
			{"empty range", map[string]any{"after": at(3), "before": at(3)}, ""},
		}
		for _, c := range cases {
			got, r := list(c.vars)
			if got != c.want {
				t.Errorf("%s: got %q, want %q", c.name, got, c.want)
			}
			// With a status the orders come from GSI1 without items: one BatchGetItem fetches the
			// items of all of them (and the customer comes first by key).
			if c.vars["status"] != nil && got != "" && (r.calls("Query") != 1 || r.calls("BatchGetItem") != 2) {
				t.Errorf("%s: calls %v", c.name, r.Extensions.DynamoDB.Calls)
			}
		}
	})

	t.Run("AP18 AP17 order by id with its items in one Query, or by key", func(t *testing.T) {
		o := d.orders[d.customers[2].ID][0]
		var out struct{ Order orderNode }
		r := a.ok(`query($id: ID!) { order(id: $id) { id status totalCents items { sku quantity } customer { name } } }`, map[string]any{"id": orderID(o)}, &out)
		if out.Order.ID != orderID(o) || out.Order.Status != "OPEN" || len(out.Order.Items) != 2 || out.Order.Customer.Name != d.customers[2].Name {
			t.Fatalf("order %+v", out.Order)
		}
		if r.calls("Query") != 1 || r.calls("BatchGetItem") != 1 || r.Extensions.DynamoDB.TotalCalls != 2 {
			t.Fatalf("calls %v, want the order with its items in one Query (AP18+AP17), then its customer", r.Extensions.DynamoDB.Calls)
		}
		// Without items, an order by id is a key lookup.
		r = a.ok(`query($id: ID!) { order(id: $id) { id status } }`, map[string]any{"id": orderID(o)}, nil)
		if r.calls("BatchGetItem") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("calls %v, want one BatchGetItem", r.Extensions.DynamoDB.Calls)
		}
		// Orders of several customers by nodes(ids:): one batch for the orders, one for all
		// their items and customers.
		ids := []string{orderID(d.orders[d.customers[0].ID][1]), orderID(o), orderID(d.orders[d.customers[2].ID][3])}
		var many struct{ Nodes []orderNode }
		r = a.ok(`query($ids: [ID!]!) { nodes(ids: $ids) { ... on Order { id items { sku } customer { name } } } }`, map[string]any{"ids": ids}, &many)
		if len(many.Nodes) != 3 || many.Nodes[0].ID != ids[0] || many.Nodes[2].Customer.Name != d.customers[2].Name || len(many.Nodes[1].Items) != 2 {
			t.Fatalf("nodes %+v", many.Nodes)
		}
		if r.calls("BatchGetItem") != 2 || r.Extensions.DynamoDB.TotalCalls != 2 {
			t.Fatalf("calls %v", r.Extensions.DynamoDB.Calls)
		}
		missing := model.EncodeID(model.TypeOrder, o.CustomerID, "01J00000000000000000000000")
		if r := a.query(`query($id: ID!) { order(id: $id) { id } }`, map[string]any{"id": missing}); r.code(t) != "NOT_FOUND" || string(r.Data) != `{"order":null}` {
			t.Fatalf("missing order: %+v %s", r.Errors, r.Data)
		}
		if r := a.query(`query($id: ID!) { order(id: $id) { id items { sku } } }`, map[string]any{"id": missing}); r.code(t) != "NOT_FOUND" || string(r.Data) != `{"order":null}` {
			t.Fatalf("missing order with items: %+v %s", r.Errors, r.Data)
		}
	})

	t.Run("cursors are bound to their list", func(t *testing.T) {
		var all struct{ Customer struct{ Orders orderConn } }
		a.ok(`query($id: ID!) { customer(id: $id) { orders(first: 1, after: null) { pageInfo { endCursor } } } }`, map[string]any{"id": customerID(cust)}, &all)
		var open struct{ Customer struct{ Orders orderConn } }
		a.ok(`query($id: ID!) { customer(id: $id) { orders(first: 1, status: OPEN) { pageInfo { endCursor } } } }`, map[string]any{"id": customerID(cust)}, &open)
		var byStatus struct{ OrdersByStatus orderConn }
		a.ok(`{ ordersByStatus(status: OPEN, first: 1) { pageInfo { endCursor } } }`, nil, &byStatus)
		allCursor, openCursor, statusCursor := *all.Customer.Orders.PageInfo.EndCursor, *open.Customer.Orders.PageInfo.EndCursor, *byStatus.OrdersByStatus.PageInfo.EndCursor
		ordersQ := `query($id: ID!, $after: String, $status: OrderStatus) { customer(id: $id) { orders(first: 1, after: $after, status: $status) { edges { node { id } } } } }`
		statusQ := `query($after: String, $status: OrderStatus!, $before: Time) { ordersByStatus(status: $status, first: 1, after: $after, placedBefore: $before) { edges { node { id } } } }`
		for name, q := range map[string]struct {
			query string
			vars  map[string]any
		}{
			"unfiltered cursor with a status":     {ordersQ, map[string]any{"id": customerID(cust), "after": allCursor, "status": "OPEN"}},
			"status cursor without it":            {ordersQ, map[string]any{"id": customerID(cust), "after": openCursor}},
			"another customer's cursor":           {ordersQ, map[string]any{"id": customerID(d.customers[0]), "after": allCursor}},
			"customer cursor on ordersByStatus":   {statusQ, map[string]any{"after": openCursor, "status": "OPEN"}},
			"ordersByStatus cursor, other status": {statusQ, map[string]any{"after": statusCursor, "status": "SHIPPED"}},
			"ordersByStatus cursor, other range":  {statusQ, map[string]any{"after": statusCursor, "status": "OPEN", "before": time.Now().Format(time.RFC3339)}},
			"ordersByStatus cursor on orders":     {ordersQ, map[string]any{"id": customerID(cust), "after": statusCursor}},
		} {
			r := a.query(q.query, q.vars)
			if c := r.code(t); c != "BAD_USER_INPUT" {
				t.Errorf("%s: code %q, want BAD_USER_INPUT", name, c)
			}
			if strings.Contains(r.Errors[0].Message, "CUST#") || strings.Contains(r.Errors[0].Message, "ORDER") {
				t.Errorf("%s: message leaks keys: %q", name, r.Errors[0].Message)
			}
		}
		// The same cursors in their own lists work.
		for _, q := range []struct {
			query string
			vars  map[string]any
		}{
			{ordersQ, map[string]any{"id": customerID(cust), "after": allCursor}},
			{ordersQ, map[string]any{"id": customerID(cust), "after": openCursor, "status": "OPEN"}},
			{statusQ, map[string]any{"after": statusCursor, "status": "OPEN"}},
		} {
			if r := a.query(q.query, q.vars); len(r.Errors) != 0 {
				t.Fatalf("own cursor refused: %+v", r.Errors)
			}
		}
	})
}

func TestMailingAddresses(t *testing.T) {
	a := newAPI(t, server.Config{})
	address := func(i int) map[string]any {
		return map[string]any{"label": fmt.Sprintf("Address %d", i), "line1": fmt.Sprintf("%d Main St", i), "city": "Springfield", "country": "US"}
	}
	addresses := func(n int) []map[string]any {
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = address(i)
		}
		return out
	}
	create := `mutation($name: String!, $email: String!, $addresses: [MailingAddressInput!]) {
	  createCustomer(input: {name: $name, email: $email, mailingAddresses: $addresses}) { id name email mailingAddresses { label } } }`
	add := `mutation($c: ID!, $a: MailingAddressInput!) { addMailingAddress(input: {customerId: $c, address: $a}) { mailingAddresses { label line1 line2 state } } }`
	count := func(id string) int {
		var out struct {
			Customer struct{ MailingAddresses []addressOut }
		}
		a.ok(`query($id: ID!) { customer(id: $id) { mailingAddresses { label } } }`, map[string]any{"id": id}, &out)
		return len(out.Customer.MailingAddresses)
	}

	t.Run("create refuses more than 20 up front and stores nothing", func(t *testing.T) {
		r := a.query(create, map[string]any{"name": "Too Many", "email": "many@x.io", "addresses": addresses(21)})
		if c := r.code(t); c != "BAD_USER_INPUT" || r.Errors[0].Extensions["field"] != "mailingAddresses" || !strings.Contains(r.Errors[0].Message, "20") {
			t.Fatalf("error %+v", r.Errors)
		}
		if r.Extensions.DynamoDB.TotalCalls != 0 {
			t.Fatalf("calls %v", r.Extensions.DynamoDB.Calls)
		}
		var out struct{ Customers struct{ Edges []any } }
		a.ok(`{ customers { edges { cursor } } }`, nil, &out)
		if len(out.Customers.Edges) != 0 {
			t.Fatalf("customers after the refused create: %+v", out)
		}
	})

	var created struct {
		CreateCustomer struct {
			ID, Name, Email  string
			MailingAddresses []addressOut
		}
	}
	a.ok(create, map[string]any{"name": "  Full House ", "email": "full@x.io", "addresses": addresses(19)}, &created)
	id := created.CreateCustomer.ID
	if created.CreateCustomer.Name != "Full House" || len(created.CreateCustomer.MailingAddresses) != 19 {
		t.Fatalf("created %+v", created)
	}

	t.Run("racing additions to a customer at 19: exactly one succeeds", func(t *testing.T) {
		const racers = 12
		codes := make([]string, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := a.query(add, map[string]any{"c": id, "a": address(100 + i)})
				switch {
				case len(r.Errors) == 0:
					codes[i] = "ok"
				case len(r.Errors) == 1:
					codes[i], _ = r.Errors[0].Extensions["code"].(string)
				default:
					codes[i] = fmt.Sprint(r.Errors)
				}
			}()
		}
		wg.Wait()
		ok, full := 0, 0
		for _, c := range codes {
			switch c {
			case "ok":
				ok++
			case "BAD_USER_INPUT":
				full++
			}
		}
		if ok != 1 || full != racers-1 {
			t.Fatalf("results %v: want exactly one success and %d BAD_USER_INPUT", codes, racers-1)
		}
		if n := count(id); n != repository.MaxMailingAddresses {
			t.Fatalf("%d addresses, want %d", n, repository.MaxMailingAddresses)
		}
	})

	t.Run("a 21st address is BAD_USER_INPUT and changes nothing", func(t *testing.T) {
		r := a.query(add, map[string]any{"c": id, "a": address(21)})
		if c := r.code(t); c != "BAD_USER_INPUT" || r.Errors[0].Extensions["field"] != "address" || !strings.Contains(r.Errors[0].Message, "at most 20") {
			t.Fatalf("error %+v", r.Errors)
		}
		if r.Extensions.DynamoDB.TotalCalls != 1 {
			t.Fatalf("calls %v, want the one conditional UpdateItem", r.Extensions.DynamoDB.Calls)
		}
		if n := count(id); n != 20 {
			t.Fatalf("%d addresses", n)
		}
	})

	t.Run("add appends, keeps optional parts optional", func(t *testing.T) {
		var c struct{ CreateCustomer struct{ ID string } }
		a.ok(create, map[string]any{"name": "Mover", "email": "mover@x.io"}, &c)
		var out struct {
			AddMailingAddress struct{ MailingAddresses []addressOut }
		}
		a.ok(add, map[string]any{"c": c.CreateCustomer.ID, "a": map[string]any{"label": "New", "line1": "5 Elm", "line2": " Unit 3 ", "city": "Shelbyville", "state": "IL", "country": "US"}}, &out)
		got := out.AddMailingAddress.MailingAddresses
		if len(got) != 1 || got[0].Label != "New" || *got[0].Line2 != "Unit 3" || *got[0].State != "IL" {
			t.Fatalf("addresses %+v", got)
		}
		a.ok(add, map[string]any{"c": c.CreateCustomer.ID, "a": address(2)}, &out)
		if got := out.AddMailingAddress.MailingAddresses; len(got) != 2 || got[1].Label != "Address 2" || got[1].Line2 != nil {
			t.Fatalf("addresses %+v", got)
		}
	})

	t.Run("errors", func(t *testing.T) {
		missing := model.EncodeID(model.TypeCustomer, "01J00000000000000000000000")
		if c := a.query(add, map[string]any{"c": missing, "a": address(1)}).code(t); c != "NOT_FOUND" {
			t.Fatalf("unknown customer: %q", c)
		}
		r := a.query(create, map[string]any{"name": "Again", "email": "FULL@x.io"})
		if c := r.code(t); c != "CONFLICT" || r.Errors[0].Extensions["field"] != "email" {
			t.Fatalf("duplicate email: %+v", r.Errors)
		}
		bad := address(1)
		bad["city"] = "  "
		for name, c := range map[string]struct {
			query string
			vars  map[string]any
			field string
		}{
			"empty city":           {add, map[string]any{"c": id, "a": bad}, "address.city"},
			"long postal code":     {add, map[string]any{"c": id, "a": map[string]any{"label": "L", "line1": "l", "city": "c", "country": "US", "postalCode": strings.Repeat("9", 21)}}, "address.postalCode"},
			"bad in create":        {create, map[string]any{"name": "N", "email": "n@x.io", "addresses": []map[string]any{address(0), bad}}, "mailingAddresses[1].city"},
			"malformed email":      {create, map[string]any{"name": "N", "email": "nope"}, "email"},
			"order id as customer": {add, map[string]any{"c": model.EncodeID(model.TypeOrder, "01J00000000000000000000000", "01J00000000000000000000000"), "a": address(1)}, "customerId"},
		} {
			r := a.query(c.query, c.vars)
			if code := r.code(t); code != "BAD_USER_INPUT" || r.Errors[0].Extensions["field"] != c.field {
				t.Errorf("%s: %+v, want BAD_USER_INPUT on %s", name, r.Errors, c.field)
			}
		}
	})
}

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
	storedOrders := func(c *repository.Customer) []string {
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
		missing := model.EncodeID(model.TypeCustomer, "01J00000000000000000000000")
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
	update := func(o *repository.Order, status string) gqlResponse {
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
			if r.calls("UpdateItem") != 1 || r.Extensions.DynamoDB.TotalCalls != 1 {
				t.Fatalf("calls %v, want one UpdateItem", r.Extensions.DynamoDB.Calls)
			}
			continue
		}
		if c := r.code(t); c != s.code || !strings.Contains(r.Errors[0].Message, "is "+s.wantCurrent) {
			t.Fatalf("order %d → %s: %+v, want %s naming %s", s.order, s.to, r.Errors, s.code, s.wantCurrent)
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
	if c := update(&repository.Order{CustomerID: cust.ID, ID: "01J00000000000000000000000"}, "SHIPPED").code(t); c != "NOT_FOUND" {
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
	var open []*repository.Order
	for _, c := range d.customers {
		for i, o := range d.orders[c.ID] {
			if i%4 == 3 { // 12 of them leave OPEN
				if _, err := a.repo.UpdateOrderStatus(t.Context(), c.ID, o.ID, repository.OrderCancelled); err != nil {
					t.Fatal(err)
				}
				continue
			}
			open = append(open, o)
		}
	}
	slices.SortFunc(open, func(x, y *repository.Order) int { return strings.Compare(y.ID, x.ID) })
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
	want := func(orders []*repository.Order) []string {
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
	other, err := repository.New(t.Context(), repository.Config{
		Table: a.repo.Table(), Region: "us-east-1", Endpoint: repotest.Endpoint(t), CursorSecret: []byte(repotest.CursorSecret), OrderStatusShards: 7,
	})
	if err != nil {
		t.Fatal(err)
	}
	b := newAPIOn(t, other, server.Config{})
	r := b.query(`query($after: String) { ordersByStatus(status: OPEN, first: 1, after: $after) { edges { node { id } } } }`, map[string]any{"after": *out.OrdersByStatus.PageInfo.EndCursor})
	if c := r.code(t); c != "BAD_USER_INPUT" {
		t.Fatalf("cursor of N=4 with N=7: %q", c)
	}
}
