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
	r, err := l.lists.orderWithItems.load(ctx, orderWithItemsKey{customer, id})
	return r.order, r.items, err
}

// StartOrderWithItems starts OrderWithItems without waiting for it.
func (l *Loaders) StartOrderWithItems(ctx context.Context, customer, id string) {
	l.lists.orderWithItems.startAll(ctx, []orderWithItemsKey{{customer, id}})
}

func (l *Loaders) readOrderWithItems(ctx context.Context, k orderWithItemsKey) (orderWithItems, error) {
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

// Customers lists customers by name (AP7), primes them and reads ahead what their level needs.
func (l *Loaders) Customers(ctx context.Context, args repository.PageArgs, level Level) (repository.Page[*repository.Customer], error) {
	return l.lists.customers.load(ctx, customersKey{page: pageOf(args), level: level})
}

func (l *Loaders) readCustomers(ctx context.Context, k customersKey) (repository.Page[*repository.Customer], error) {
	p, err := l.repo.ListCustomers(ctx, k.page.args())
	prime(ctx, l, p.Items...)
	l.ReadAhead(ctx, LevelObjects{Level: k.level, Objects: entities(p.Items)})
	return p, err
}

// OrdersOfCustomer pages through a customer's orders, newest first (AP16), and primes them and,
// when they came with the orders (no status filter), their items. With a status filter the orders
// come from GSI1 without their items: the order lists of one level are read together (see
// StartOrdersOfCustomers), and the items the level asks for are looked up in one batch when the
// last Query is back.
func (l *Loaders) OrdersOfCustomer(ctx context.Context, customer string, f repository.OrderFilter, args repository.PageArgs, level Level) (repository.Page[*repository.Order], error) {
	k := ordersKeyOf(customer, f, args, level)
	if k.status.set {
		return l.lists.statusOrders.load(ctx, k)
	}
	return l.lists.orders.load(ctx, k)
}

// StartOrdersOfCustomers starts customers' order lists (filter f, one page each), every customer
// of a level, as one batch; OrdersOfCustomer with the same arguments then waits for them.
func (l *Loaders) StartOrdersOfCustomers(ctx context.Context, customers []string, f repository.OrderFilter, args repository.PageArgs, level Level) {
	keys := make([]ordersKey, len(customers))
	for i, c := range customers {
		keys[i] = ordersKeyOf(c, f, args, level)
	}
	if f.Status != nil {
		l.lists.statusOrders.startAll(ctx, keys)
		return
	}
	l.lists.orders.startAll(ctx, keys)
}

// readOrders reads order lists without a status: each with its orders' items, which it primes.
func (l *Loaders) readOrders(ctx context.Context, keys []ordersKey, whole bool, answer func(int, repository.Page[*repository.Order], error)) ([]repository.Page[*repository.Order], []error) {
	return readLevel(ctx, l, keys, whole, "order list query", func(k ordersKey) Level { return k.level },
		func(ctx context.Context, k ordersKey) (repository.Page[*repository.Order], error) {
			p, items, err := l.repo.OrdersOfCustomer(ctx, k.customer, k.filter(), k.page.args())
			prime(ctx, l, p.Items...)
			prime(ctx, l, items...)
			return p, err
		}, answer)
}

// readStatusOrders reads the status-filtered order lists of one level concurrently (GSI1, the
// orders without their items), and when all are back looks up what the level asks of their
// orders (their items), all in one batch.
func (l *Loaders) readStatusOrders(ctx context.Context, keys []ordersKey, whole bool, answer func(int, repository.Page[*repository.Order], error)) ([]repository.Page[*repository.Order], []error) {
	return readLevel(ctx, l, keys, whole, "order list query", func(k ordersKey) Level { return k.level },
		func(ctx context.Context, k ordersKey) (repository.Page[*repository.Order], error) {
			p, _, err := l.repo.OrdersOfCustomer(ctx, k.customer, k.filter(), k.page.args())
			prime(ctx, l, p.Items...)
			return p, err
		}, answer)
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

// StartCustomerWithOrders starts CustomerWithOrders without waiting for it.
func (l *Loaders) StartCustomerWithOrders(ctx context.Context, customer string, first int) {
	l.lists.customerWithOrders.startAll(ctx, []withChildrenKey{{parent: customer, first: first}})
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
// merged), primes them and reads ahead what their level needs.
func (l *Loaders) OrdersByStatus(ctx context.Context, status repository.OrderStatus, f repository.OrderFilter, args repository.PageArgs, level Level) (repository.Page[*repository.Order], error) {
	return l.lists.ordersByStatus.load(ctx, ordersByStatusKey{status: status, after: instantOf(f.PlacedAfter), before: instantOf(f.PlacedBefore), page: pageOf(args), level: level})
}

func (l *Loaders) readOrdersByStatus(ctx context.Context, k ordersByStatusKey) (repository.Page[*repository.Order], error) {
	p, err := l.repo.OrdersByStatus(ctx, k.status, k.after.time(), k.before.time(), k.page.args())
	prime(ctx, l, p.Items...)
	l.ReadAhead(ctx, LevelObjects{Level: k.level, Objects: entities(p.Items)})
	return p, err
}
