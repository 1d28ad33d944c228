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
		c, err := a.repo.CreateCustomer(t.Context(), "Addressed", "addressed@shop.example", []commerce.MailingAddress{
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
			if _, err := a.repo.UpdateOrderStatus(t.Context(), cust.ID, orders[i].ID, commerce.OrderShipped); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := a.repo.UpdateOrderStatus(t.Context(), cust.ID, orders[3].ID, commerce.OrderDelivered); err != nil {
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
		missing := model.Orders.IDOf(o.CustomerID, "01J00000000000000000000000")
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
		missing := model.Customers.IDOf("01J00000000000000000000000")
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
			"order id as customer": {add, map[string]any{"c": model.Orders.IDOf("01J00000000000000000000000", "01J00000000000000000000000"), "a": address(1)}, "customerId"},
		} {
			r := a.query(c.query, c.vars)
			if code := r.code(t); code != "BAD_USER_INPUT" || r.Errors[0].Extensions["field"] != c.field {
				t.Errorf("%s: %+v, want BAD_USER_INPUT on %s", name, r.Errors, c.field)
			}
		}
	})
}
