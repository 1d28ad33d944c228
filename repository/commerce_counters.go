package repository

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The commerce domain's counters (see counters.go): a customer's orders by status.

// orderCountAttr is the attribute that counts a customer's orders with status st (openOrders,
// shippedOrders, deliveredOrders, cancelledOrders).
func orderCountAttr(st OrderStatus) string { return strings.ToLower(string(st)) + "Orders" }

// OrderTotal is the number of the customer's orders that filter f keeps: all of them, or those
// with its status; unknown with a time range.
func (c *Customer) OrderTotal(f OrderFilter) Count {
	ranged := f.PlacedAfter != nil || f.PlacedBefore != nil
	return filteredTotal(c.Counted, ranged, f.Status, c.orderCount, c.OpenOrders+c.ShippedOrders+c.DeliveredOrders+c.CancelledOrders)
}

func (c *Customer) orderCount(st OrderStatus) int {
	switch st {
	case OrderOpen:
		return c.OpenOrders
	case OrderShipped:
		return c.ShippedOrders
	case OrderDelivered:
		return c.DeliveredOrders
	case OrderCancelled:
		return c.CancelledOrders
	}
	return 0
}

func orderCountAttrs() []string {
	out := make([]string, len(orderStatuses))
	for i, st := range orderStatuses {
		out[i] = orderCountAttr(st)
	}
	return out
}

// orderStatuses are every order status, in the order counters are reported.
var orderStatuses = []OrderStatus{OrderOpen, OrderShipped, OrderDelivered, OrderCancelled}

// Counted: a customer's orders by status.
var _ = counted(Tally{
	Parent: TypeCustomer, Attrs: orderCountAttrs(),
	project: []string{AttrType, "customerId", "status"},
	of: func(it map[string]types.AttributeValue) (Key, string, bool) {
		return CustomerKeyOf(StringAttr(it, "customerId")), orderCountAttr(OrderStatus(StringAttr(it, "status"))), StringAttr(it, AttrType) == TypeOrder
	},
	Each: func(ctx context.Context, r *Repo, fn func(Entity) error) error {
		return EachPage(func(a PageArgs) (Page[*Customer], error) { return r.ListCustomers(ctx, a) }, entityFn[*Customer](fn))
	},
	// The orders with their items, from the table itself (a consistent read); the items
	// count toward nothing.
	collection: func(p Entity) *dynamodb.QueryInput {
		return keyQuery("PK = :pk AND begins_with(SK, :p)", customerPK(p.(*Customer).ID), orderSKPrefix)
	},
})
