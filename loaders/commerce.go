package loaders

import (
	"context"

	"singletable/repository"
)

type orderWithItems struct {
	order *repository.Order
	items []*repository.OrderItem
}

// OrderWithItems reads an order and its items in ONE Query (AP18 + AP17) and primes them.
func (l *Loaders) OrderWithItems(ctx context.Context, customer, id string) (*repository.Order, []*repository.OrderItem, error) {
	r, err := l.lists.orderWithItems.load(ctx, orderKey{customer, id})
	return r.order, r.items, err
}

func (l *Loaders) readOrderWithItems(ctx context.Context, k orderKey) (orderWithItems, error) {
	o, items, err := l.repo.OrderWithItems(ctx, k.customer, k.id)
	if err != nil {
		return orderWithItems{}, err
	}
	prime(ctx, l, o)
	prime(ctx, l, items...)
	return orderWithItems{o, items}, nil
}

// OrderItems returns an order's items, line 1 first, by their keys (the order knows how many
// lines it has): free when they were read together with the order and primed, otherwise part of
// the level's one BatchGetItem (AP17).
func (l *Loaders) OrderItems(ctx context.Context, o *repository.Order) ([]*repository.OrderItem, error) {
	return loadMany[*repository.OrderItem](ctx, l, o.ItemKeys(), "order item")
}

// Customers lists customers by name (AP7) and primes them.
func (l *Loaders) Customers(ctx context.Context, args repository.PageArgs) (repository.Page[*repository.Customer], error) {
	return l.lists.customers.load(ctx, customersKey{pageOf(args)})
}

func (l *Loaders) readCustomers(ctx context.Context, k customersKey) (repository.Page[*repository.Customer], error) {
	p, err := l.repo.ListCustomers(ctx, k.page.args())
	prime(ctx, l, p.Items...)
	return p, err
}

// OrdersOfCustomer pages through a customer's orders, newest first (AP16), and primes them and,
// when they came with the orders (no status filter), their items. With a status filter the orders
// come from GSI1 without their items: the order lists of one level are read together (see
// StartOrdersOfCustomer) and, withItems, the items of all their orders are looked up in one batch
// when the last Query is back.
func (l *Loaders) OrdersOfCustomer(ctx context.Context, customer string, f repository.OrderFilter, args repository.PageArgs, withItems bool) (repository.Page[*repository.Order], error) {
	k := ordersKeyOf(customer, f, args, withItems)
	if k.status.set {
		return l.lists.statusOrders.load(ctx, k)
	}
	return l.lists.orders.load(ctx, k)
}

// StartOrdersOfCustomers starts customers' status-filtered order lists now, without waiting:
// started together, the items of all their orders are looked up in one batch. wholeLevel says the
// caller holds every list of the level (nodes(ids:) holds all its customers): they are then
// dispatched at once, without a batch window. OrdersOfCustomer with
// the same arguments then waits for them.
func (l *Loaders) StartOrdersOfCustomers(ctx context.Context, customers []string, f repository.OrderFilter, args repository.PageArgs, withItems bool, wholeLevel bool) {
	if f.Status == nil {
		return
	}
	keys := make([]ordersKey, len(customers))
	for i, c := range customers {
		keys[i] = ordersKeyOf(c, f, args, withItems)
	}
	l.lists.statusOrders.startAll(ctx, keys, wholeLevel)
}

func (l *Loaders) readOrders(ctx context.Context, k ordersKey) (repository.Page[*repository.Order], error) {
	p, items, err := l.repo.OrdersOfCustomer(ctx, k.customer, k.filter(), k.page.args())
	prime(ctx, l, p.Items...)
	prime(ctx, l, items...)
	return p, err
}

// readStatusOrders reads the status-filtered order lists of one level concurrently (GSI1, the
// orders without their items), and when all are back looks up the items of the lists that ask for
// them, all in one batch (FetchNow).
func (l *Loaders) readStatusOrders(ctx context.Context, keys []ordersKey) ([]repository.Page[*repository.Order], []error) {
	ctx, end := l.startBatch(ctx, BatchLevel, len(keys))
	defer end()
	pages := make([]repository.Page[*repository.Order], len(keys))
	errs := each(len(keys), "order list query", func(i int) (err error) {
		pages[i], _, err = l.repo.OrdersOfCustomer(ctx, keys[i].customer, keys[i].filter(), keys[i].page.args())
		prime(ctx, l, pages[i].Items...)
		return err
	})
	var next []repository.Key
	for i, k := range keys {
		if k.withItems && errs[i] == nil {
			for _, o := range pages[i].Items {
				next = append(next, o.ItemKeys()...)
			}
		}
	}
	l.FetchNow(ctx, next...)
	return pages, errs
}

type customerWithOrders struct {
	customer *repository.Customer
	orders   repository.Page[*repository.Order]
}

// CustomerWithOrders reads a customer with its newest orders and their items in ONE Query
// (AP15+AP16+AP17) and primes all of them.
func (l *Loaders) CustomerWithOrders(ctx context.Context, customer string, first int) (*repository.Customer, repository.Page[*repository.Order], error) {
	r, err := l.lists.customerWithOrders.load(ctx, withChildrenKey{parent: customer, first: first})
	return r.customer, r.orders, err
}

func (l *Loaders) readCustomerWithOrders(ctx context.Context, k withChildrenKey) (customerWithOrders, error) {
	c, orders, items, err := l.repo.CustomerWithOrders(ctx, k.parent, k.first)
	if err != nil {
		return customerWithOrders{}, err
	}
	prime(ctx, l, c)
	prime(ctx, l, orders.Items...)
	prime(ctx, l, items...)
	return customerWithOrders{c, orders}, nil
}

// OrdersByStatus lists the orders of one status across all customers (AP20: one Query per shard,
// merged) and primes them.
func (l *Loaders) OrdersByStatus(ctx context.Context, status repository.OrderStatus, f repository.OrderFilter, args repository.PageArgs) (repository.Page[*repository.Order], error) {
	return l.lists.ordersByStatus.load(ctx, ordersByStatusKey{status: status, after: instantOf(f.PlacedAfter), before: instantOf(f.PlacedBefore), page: pageOf(args)})
}

func (l *Loaders) readOrdersByStatus(ctx context.Context, k ordersByStatusKey) (repository.Page[*repository.Order], error) {
	p, err := l.repo.OrdersByStatus(ctx, k.status, k.after.time(), k.before.time(), k.page.args())
	prime(ctx, l, p.Items...)
	return p, err
}
