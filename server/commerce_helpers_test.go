package server_test

import (
	"context"
	"encoding/json"
	"fmt"

	"singletable/graph/model"
	"singletable/repository/commerce"
)

// shopData is a Commerce dataset created through the repository: customers × orders × items.
type shopData struct {
	customers []*commerce.Customer
	orders    map[string][]*commerce.Order     // by customer id, oldest first
	items     map[string][]*commerce.OrderItem // by order id, line 1 first
}

// seedCommerce creates customers, each with ordersPerCustomer OPEN orders of itemsPerOrder lines.
// Line i of an order is SKU-<i>, quantity i+1, unit price 100·(i+1) cents.
func (a *api) seedCommerce(customers, ordersPerCustomer, itemsPerOrder int) shopData {
	a.t.Helper()
	ctx := context.Background()
	d := shopData{orders: map[string][]*commerce.Order{}, items: map[string][]*commerce.OrderItem{}}
	for c := range customers {
		cu, err := a.repo.CreateCustomer(ctx, fmt.Sprintf("Customer %c", 'A'+c), fmt.Sprintf("c%d@shop.example", c), nil)
		if err != nil {
			a.t.Fatal(err)
		}
		d.customers = append(d.customers, cu)
		for o := range ordersPerCustomer {
			o, items, err := a.repo.PlaceOrder(ctx, cu.ID, orderLines(itemsPerOrder), fmt.Sprintf("seed-%d-%d", c, o))
			if err != nil {
				a.t.Fatal(err)
			}
			d.orders[cu.ID] = append(d.orders[cu.ID], o)
			d.items[o.ID] = items
		}
	}
	return d
}

func orderLines(n int) []commerce.OrderLine {
	lines := make([]commerce.OrderLine, n)
	for i := range lines {
		lines[i] = commerce.OrderLine{SKU: fmt.Sprintf("SKU-%d", i+1), ProductName: fmt.Sprintf("Product %d", i+1), Quantity: i + 1, UnitPriceCents: int64(100 * (i + 1))}
	}
	return lines
}

func customerID(c *commerce.Customer) string { return model.Customers.IDOf(c.ID) }
func orderID(o *commerce.Order) string       { return model.Orders.IDOf(o.CustomerID, o.ID) }

type orderConn struct {
	Edges []struct {
		Cursor string
		Node   orderNode
	}
	PageInfo pageInfo
}

type orderNode struct {
	ID, Status string
	TotalCents int64
	Items      []struct {
		SKU            string
		Quantity       int
		UnitPriceCents int64
	}
	Customer struct{ Name string }
}

// ids lists the orders of a connection by global ID.
func (c orderConn) ids() []string {
	var out []string
	for _, e := range c.Edges {
		out = append(out, e.Node.ID)
	}
	return out
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
