package commerce

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
)

// The commerce domain's counters (see counters.go): a customer's orders by status.

// orderCountAttr is the attribute that counts a customer's orders with status st (openOrders,
// shippedOrders, deliveredOrders, cancelledOrders).
func orderCountAttr(st OrderStatus) string { return strings.ToLower(string(st)) + "Orders" }

// OrderTotal is the number of the customer's orders that filter f keeps: all of them, or those
// with its status; unknown with a time range.
func (c *Customer) OrderTotal(f OrderFilter) repository.Count {
	ranged := f.PlacedAfter != nil || f.PlacedBefore != nil
	return repository.FilteredTotal(c.Counted, ranged, f.Status, c.orderCount, c.OpenOrders+c.ShippedOrders+c.DeliveredOrders+c.CancelledOrders)
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
var _ = repository.Counted(repository.Tally{
	Parent: TypeCustomer, Attrs: orderCountAttrs(),
	Project: []string{repository.AttrType, "customerId", "status"},
	Of: func(it map[string]types.AttributeValue) (repository.Key, string, bool) {
		return CustomerKeyOf(repository.StringAttr(it, "customerId")), orderCountAttr(OrderStatus(repository.StringAttr(it, "status"))), repository.StringAttr(it, repository.AttrType) == TypeOrder
	},
	Each: func(ctx context.Context, repo *repository.Repo, fn func(repository.Entity) error) error {
		r := &Commerce{Repo: repo}
		return repository.EachPage(func(a repository.PageArgs) (repository.Page[*Customer], error) { return r.ListCustomers(ctx, a) }, repository.EntityFn[*Customer](fn))
	},
	// The orders with their items, from the table itself (a consistent read); the items
	// count toward nothing.
	Collection: func(p repository.Entity) *dynamodb.QueryInput {
		return repository.KeyQuery("PK = :pk AND begins_with(SK, :p)", customerPK(p.(*Customer).ID), orderSKPrefix)
	},
})
