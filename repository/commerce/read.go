package commerce

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// OrderFilter narrows a customer's orders: by status and by placement time. Both time bounds are
// exclusive.
type OrderFilter struct {
	Status       *OrderStatus
	PlacedAfter  *time.Time
	PlacedBefore *time.Time
}

// ordersScope binds the cursors of a customer's unfiltered orders to the customer and id range.
func ordersScope(customer, lo, hi string) string {
	return repository.Join("orders", customerPK(customer), lo, hi)
}

// OrdersOfCustomer pages through a customer's orders, newest first (AP16).
//
// Without a status the orders come TOGETHER with their items (AP17), from one Query of the
// customer's collection: PK=CUST#<c>, SK BETWEEN ORDER#<lo> AND ORDER#<hi>~, newest first. The
// returned items are those of the page's orders; the caller primes them so that Order.items costs
// nothing. Reading items with their orders costs one Query per customer instead of one more per
// order, and they are small and always shown with their order.
//
// With a status it is a range on the customer's GSI1 partition ( PK=CUST#<c>#ORDERS, SK BETWEEN <status>#<lo>
// AND <status>#<hi>, newest first): the index holds order items only, so items is nil and
// Order.items looks them up by key (Order.ItemKeys), batched with every other order of the level.
func (r *Commerce) OrdersOfCustomer(ctx context.Context, customer string, f OrderFilter, args repository.PageArgs) (repository.Page[*Order], []*OrderItem, error) {
	if err := repository.CheckID("id", customer); err != nil {
		return repository.Page[*Order]{}, nil, err
	}
	if err := args.Validate(); err != nil {
		return repository.Page[*Order]{}, nil, err
	}
	if f.Status != nil && !f.Status.valid() {
		return repository.Page[*Order]{}, nil, apperr.InvalidInput("status", "unknown order status")
	}
	lo, hi, ok := repository.IDRange(f.PlacedAfter, f.PlacedBefore)
	if !ok {
		return repository.Page[*Order]{HasPreviousPage: args.After != ""}, nil, nil
	}
	if f.Status != nil {
		pk := customerOrdersPK(customer)
		q := OrdersOfCustomerStatus.Query(repository.Join("orders", pk, string(*f.Status), lo, hi), pk, orderStatusGSI1SK(*f.Status, lo), orderStatusGSI1SK(*f.Status, hi))
		p, err := repository.QueryPage[*Order](ctx, r.Repo, q, args)
		return p, nil, err
	}
	scope := ordersScope(customer, lo, hi)
	in := OrdersOfCustomer.Input(r.Table(), customerPK(customer), orderSK(lo), orderRangeEnd(hi))
	if args.After != "" {
		vals, err := r.Cursors.Decode(scope, args.After, 2)
		if err != nil {
			return repository.Page[*Order]{}, nil, err
		}
		in.ExclusiveStartKey = map[string]types.AttributeValue{repository.AttrPK: repository.StringValue(vals[0]), repository.AttrSK: repository.StringValue(vals[1])}
	}
	g := newOrderGrouper(args.First, false)
	if err := r.readOrderGroups(ctx, in, g); err != nil {
		return repository.Page[*Order]{}, nil, err
	}
	return g.page(r, scope, args), g.items, nil
}

// CustomerWithOrders reads a customer, its newest orders and their items with ONE Query: the
// customer item (SK=PROFILE) sorts after every ORDER#… key of its collection, so reading
// PK=CUST#<c>, SK BETWEEN ORDER#<lowest id> AND PROFILE newest first yields the customer first,
// then each order's items and the order. The orders' cursors continue in OrdersOfCustomer.
func (r *Commerce) CustomerWithOrders(ctx context.Context, customer string, first int) (*Customer, repository.Page[*Order], []*OrderItem, error) {
	if err := repository.CheckID("id", customer); err != nil {
		return nil, repository.Page[*Order]{}, nil, err
	}
	args := repository.PageArgs{First: first}
	if err := args.Validate(); err != nil {
		return nil, repository.Page[*Order]{}, nil, err
	}
	lo, hi, _ := repository.IDRange(nil, nil)
	in := CustomerWithOrders.Input(r.Table(), customerPK(customer), orderSK(lo), customerProfileSK)
	g := newOrderGrouper(args.First, true)
	if err := r.readOrderGroups(ctx, in, g); err != nil {
		return nil, repository.Page[*Order]{}, nil, err
	}
	if g.customer == nil {
		return nil, repository.Page[*Order]{}, nil, apperr.NotFound("customer")
	}
	return g.customer, g.page(r, ordersScope(customer, lo, hi), args), g.items, nil
}

// assumedItemsPerOrder sizes the first Query of orders read with their items. How many items an
// order has is known only once its order record is read (after its items, newest first), so the
// first call assumes this many (a typical small order) and any further call uses the ratio
// actually read.
const assumedItemsPerOrder = 3

// orderGrouper turns the records of a newest-first Query of a customer's collection into orders
// with their items: each order's items come just before the order's own record.
type orderGrouper struct {
	first    int
	head     bool // the customer's own item is expected first
	customer *Customer
	records  int          // order and item records consumed
	pending  []*OrderItem // items whose order record has not been read yet
	orders   []*Order
	raws     []map[string]types.AttributeValue // the orders' records, for cursors
	items    []*OrderItem
	more     bool // a record follows the page's last order: hasNextPage
	started  bool
}

// newOrderGrouper is a grouper for a page of first orders, its slices sized for a page of orders
// of assumedItemsPerOrder items so that reading it does not grow them step by step.
func newOrderGrouper(first int, head bool) *orderGrouper {
	return &orderGrouper{
		first:   first,
		head:    head,
		pending: make([]*OrderItem, 0, 2*assumedItemsPerOrder),
		orders:  make([]*Order, 0, first),
		raws:    make([]map[string]types.AttributeValue, 0, first),
		items:   make([]*OrderItem, 0, first*assumedItemsPerOrder),
	}
}

// add consumes one record and reports whether the page is complete: it has `first` orders and
// has seen one more record (which can only belong to an older order).
func (g *orderGrouper) add(item map[string]types.AttributeValue) (bool, error) {
	t := repository.StringAttr(item, repository.AttrType)
	if g.head && !g.started {
		g.started = true
		if t != TypeCustomer {
			return true, nil // no customer: the caller reports NOT_FOUND
		}
		c, err := repository.DecodeAs[*Customer](item)
		g.customer = c
		return false, err
	}
	g.started = true
	if len(g.orders) == g.first {
		g.more = true
		return true, nil
	}
	g.records++
	switch t {
	case TypeOrderItem:
		it, err := repository.DecodeAs[*OrderItem](item)
		if err != nil {
			return true, err
		}
		g.pending = append(g.pending, it)
	case TypeOrder:
		o, err := repository.DecodeAs[*Order](item)
		if err != nil {
			return true, err
		}
		for _, it := range g.pending {
			if it.OrderID == o.ID {
				g.items = append(g.items, it)
			}
		}
		g.pending = g.pending[:0]
		g.orders = append(g.orders, o)
		g.raws = append(g.raws, item)
	default:
		return true, apperr.Internal("read orders", fmt.Errorf("unexpected %q item among a customer's orders", t))
	}
	return false, nil
}

// limit is the Limit of the next Query call: the records of the orders still wanted plus the one
// record that tells whether more exist. An order being read is counted exactly: newest first, its
// highest line comes first, so the lowest line read so far is the number of its records still to
// come (the lower lines and the order itself). Orders not started yet are estimated from the
// complete ones read so far, or assumedItemsPerOrder.
func (g *orderGrouper) limit() int {
	n := 1
	if g.head && !g.started {
		n++
	}
	want := g.first - len(g.orders)
	if len(g.pending) > 0 && want > 0 {
		n += g.pending[len(g.pending)-1].Line
		want--
	}
	perOrder := float64(1 + assumedItemsPerOrder)
	if len(g.orders) > 0 {
		perOrder = float64(g.records-len(g.pending)) / float64(len(g.orders))
	}
	n += int(math.Ceil(float64(want) * perOrder * 1.25))
	return min(n, 10000)
}

// readOrderGroups runs the Query, continuing from LastEvaluatedKey, until g has its page or the
// key range ends. Usually one call: the first Limit fits orders of up to assumedItemsPerOrder
// items (with headroom); a page of larger orders takes a second call sized from what the first
// one read.
func (r *Commerce) readOrderGroups(ctx context.Context, in *dynamodb.QueryInput, g *orderGrouper) error {
	for {
		in.Limit = aws.Int32(int32(g.limit()))
		out, err := r.DB.Query(ctx, in)
		if err != nil {
			return apperr.Classify("query orders", err)
		}
		for _, item := range out.Items {
			done, err := g.add(item)
			if err != nil {
				return err
			}
			if done {
				return nil
			}
		}
		if out.LastEvaluatedKey == nil {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// page is the Relay page of the grouped orders. An order's cursor is the key of its ORDER record,
// the last record of its group newest first, so continuing after it starts at the next order's
// items.
func (g *orderGrouper) page(r *Commerce, scope string, args repository.PageArgs) repository.Page[*Order] {
	p := repository.FinishPage(r.Repo, scope, repository.KeyAttrs(""), g.orders, g.raws, args)
	p.HasNextPage = g.more
	return p
}

// OrderWithItems reads an order and its items with ONE Query of the order's part of its
// customer's collection (AP18 + AP17): PK=CUST#<c> AND SK BETWEEN ORDER#<o> AND ORDER#<o>~ holds
// the order's record and then its items, line 1 first. For one order that is one call where a
// lookup by key takes two (the order, then its items, whose count the order holds).
func (r *Commerce) OrderWithItems(ctx context.Context, customer, order string) (*Order, []*OrderItem, error) {
	if err := errors.Join(repository.CheckID("id", customer), repository.CheckID("id", order)); err != nil {
		return nil, nil, apperr.InvalidInput("id", "id is not a valid order id")
	}
	raws, err := r.QueryAll(ctx, OrderWithItems.Input(r.Table(), customerPK(customer), orderSK(order), orderRangeEnd(order)))
	if err != nil {
		return nil, nil, err
	}
	if len(raws) == 0 || repository.StringAttr(raws[0], repository.AttrType) != TypeOrder {
		return nil, nil, apperr.NotFound("order")
	}
	o, err := repository.DecodeAs[*Order](raws[0])
	if err != nil {
		return nil, nil, err
	}
	items, err := repository.DecodeAll[*OrderItem](raws[1:])
	if err != nil {
		return nil, nil, err
	}
	return o, items, nil
}

// ListCustomers lists customers by name (AP7): a Query of the Customer partition of the
// entity-type index GSI2, never a Scan.
func (r *Commerce) ListCustomers(ctx context.Context, args repository.PageArgs) (repository.Page[*Customer], error) {
	return repository.ListByType[*Customer](ctx, r.Repo, CustomersByName, args)
}

// OrderItemsOfProduct pages through the order lines that name a product, newest first (AP25:
// GSI1 PRODUCT#<p>#ORDERITEMS, read backwards).
func (r *Commerce) OrderItemsOfProduct(ctx context.Context, product string, args repository.PageArgs) (repository.Page[*OrderItem], error) {
	if err := repository.CheckID("id", product); err != nil {
		return repository.Page[*OrderItem]{}, err
	}
	pk := productOrderItemsPK(product)
	return repository.QueryPage[*OrderItem](ctx, r.Repo, OrderItemsOfProduct.Query(repository.Join("orderitems", pk), pk), args)
}
