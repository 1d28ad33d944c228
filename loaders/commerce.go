package loaders

import (
	"context"

	"singletable/repository"
	"singletable/repository/commerce"
)

// OrderWithItems reads an order and its items in ONE Query (AP18 + AP17) and primes them.
func (l *Loaders) OrderWithItems(ctx context.Context, customer, id string) (*commerce.Order, []*commerce.OrderItem, error) {
	r, err := l.lists.orderWithItems.load(ctx, withChildrenKey{parent: customer, id: id})
	return r.parent, r.children.Items, err
}

// StartOrderWithItems starts OrderWithItems without waiting for it.
func (l *Loaders) StartOrderWithItems(ctx context.Context, customer, id string) {
	l.lists.orderWithItems.startAll(ctx, []withChildrenKey{{parent: customer, id: id}})
}

func (l *Loaders) readOrderWithItems(ctx context.Context, k withChildrenKey) (*commerce.Order, repository.Page[*commerce.OrderItem], error) {
	o, items, err := l.repo.OrderWithItems(ctx, k.parent, k.id)
	return o, repository.Page[*commerce.OrderItem]{Items: items}, err
}

// OrderItems returns an order's items, line 1 first, by their keys (the order knows how many
// lines it has): free when they were read together with the order and primed, otherwise part of
// the level's one BatchGetItem (AP17).
func (l *Loaders) OrderItems(ctx context.Context, o *commerce.Order) ([]*commerce.OrderItem, error) {
	return loadMany[*commerce.OrderItem](ctx, l, o.ItemKeys(), "order item")
}

// Customers lists customers by name (AP7), primes them and reads ahead what their level needs.
func (l *Loaders) Customers(ctx context.Context, args repository.PageArgs, level Level) (repository.Page[*commerce.Customer], error) {
	return l.lists.customers.load(ctx, listPageOf(args, level))
}

// OrdersOfCustomer pages through a customer's orders, newest first (AP16), and primes them and,
// when they came with the orders (no status filter), their items. With a status filter the orders
// come from GSI1 without their items: the order lists of one level are read together (see
// StartOrdersOfCustomers), and the items the level asks for are looked up in one batch when the
// last Query is back.
func (l *Loaders) OrdersOfCustomer(ctx context.Context, customer string, f commerce.OrderFilter, args repository.PageArgs, level Level) (repository.Page[*commerce.Order], error) {
	k := ordersKeyOf(customer, f, args, level)
	if k.status.set {
		return l.lists.statusOrders.load(ctx, k)
	}
	return l.lists.orders.load(ctx, k)
}

// StartOrdersOfCustomers starts customers' order lists (filter f, one page each), every customer
// of a level, as one batch; OrdersOfCustomer with the same arguments then waits for them.
func (l *Loaders) StartOrdersOfCustomers(ctx context.Context, customers []string, f commerce.OrderFilter, args repository.PageArgs, level Level) {
	keys := keysOf(customers, func(c string) ordersKey { return ordersKeyOf(c, f, args, level) })
	if f.Status != nil {
		l.lists.statusOrders.startAll(ctx, keys)
		return
	}
	l.lists.orders.startAll(ctx, keys)
}

// readOrders reads an order list without a status: with its orders' items, which it primes.
func (l *Loaders) readOrders(ctx context.Context, k ordersKey) (repository.Page[*commerce.Order], error) {
	p, items, err := l.repo.OrdersOfCustomer(ctx, k.customer, k.filter(), k.page.args())
	prime(ctx, l, items...)
	return p, err
}

// readStatusOrders reads a status-filtered order list (GSI1, the orders without their items). The
// lists of one level are read concurrently, and when all are back what the level asks of their
// orders (their items) is looked up, all in one batch.
func (l *Loaders) readStatusOrders(ctx context.Context, k ordersKey) (repository.Page[*commerce.Order], error) {
	p, _, err := l.repo.OrdersOfCustomer(ctx, k.customer, k.filter(), k.page.args())
	return p, err
}

// CustomerWithOrders reads a customer with its newest orders and their items in ONE Query
// (AP15+AP16+AP17) and primes all of them.
func (l *Loaders) CustomerWithOrders(ctx context.Context, customer string, first int) (*commerce.Customer, repository.Page[*commerce.Order], error) {
	r, err := l.lists.customerWithOrders.load(ctx, withChildrenKey{parent: customer, first: first})
	return r.parent, r.children, err
}

// StartCustomerWithOrders starts CustomerWithOrders without waiting for it.
func (l *Loaders) StartCustomerWithOrders(ctx context.Context, customer string, first int) {
	l.lists.customerWithOrders.startAll(ctx, []withChildrenKey{{parent: customer, first: first}})
}

// readCustomerWithOrders primes the orders' items that came with them (withChildren primes the
// customer and its orders).
func (l *Loaders) readCustomerWithOrders(ctx context.Context, k withChildrenKey) (*commerce.Customer, repository.Page[*commerce.Order], error) {
	c, orders, items, err := l.repo.CustomerWithOrders(ctx, k.parent, k.first)
	if err == nil {
		prime(ctx, l, items...)
	}
	return c, orders, err
}

// OrdersByStatus lists the orders of one status across all customers (AP20: one Query per shard,
// merged), primes them and reads ahead what their level needs.
func (l *Loaders) OrdersByStatus(ctx context.Context, status commerce.OrderStatus, f commerce.OrderFilter, args repository.PageArgs, level Level) (repository.Page[*commerce.Order], error) {
	return l.lists.ordersByStatus.load(ctx, ordersByStatusKey{status: status, after: instantOf(f.PlacedAfter), before: instantOf(f.PlacedBefore),
		listPage: listPageOf(args, level)})
}

func (l *Loaders) readOrdersByStatus(ctx context.Context, k ordersByStatusKey) (repository.Page[*commerce.Order], error) {
	return l.repo.OrdersByStatus(ctx, k.status, k.after.time(), k.before.time(), k.page.args())
}
