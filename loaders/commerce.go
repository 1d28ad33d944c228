package loaders

import (
	"context"
	"fmt"

	"singletable/repository"
)

// Customer looks a customer up by id (AP15: its mailing addresses are part of the item), batched.
func (l *Loaders) Customer(ctx context.Context, id string) (*repository.Customer, error) {
	k, err := repository.CustomerKey(id)
	if err != nil {
		return nil, err
	}
	return load[*repository.Customer](ctx, l, k, "customer")
}

// Order looks an order up by customer and order id (AP18), batched.
func (l *Loaders) Order(ctx context.Context, customer, id string) (*repository.Order, error) {
	k, err := repository.OrderKey(customer, id)
	if err != nil {
		return nil, err
	}
	return load[*repository.Order](ctx, l, k, "order")
}

type orderWithItems struct {
	order *repository.Order
	items []*repository.OrderItem
}

// OrderWithItems reads an order and its items in ONE Query (AP18 + AP17) and primes them.
func (l *Loaders) OrderWithItems(ctx context.Context, customer, id string) (*repository.Order, []*repository.OrderItem, error) {
	r, err := memoize(&l.memo, fmt.Sprintf("order+items|%s|%s", customer, id), func() (orderWithItems, error) {
		o, items, err := l.repo.OrderWithItems(ctx, customer, id)
		if err != nil {
			return orderWithItems{}, err
		}
		prime(ctx, l, o)
		prime(ctx, l, items...)
		return orderWithItems{o, items}, nil
	})
	return r.order, r.items, err
}

// OrderItems returns an order's items, line 1 first, by their keys (the order knows how many
// lines it has): free when they were read together with the order and primed, otherwise part of
// the level's one BatchGetItem (AP17).
func (l *Loaders) OrderItems(ctx context.Context, o *repository.Order) ([]*repository.OrderItem, error) {
	return loadMany[*repository.OrderItem](ctx, l, o.ItemKeys(), "order item")
}

// RememberOrder stores an order and its items that a mutation wrote or read back (see Remember),
// so that the fields the mutation's result asks for read what was written — also when an earlier
// field of the same operation had cached the old version — and cannot miss the fresh write, as an
// eventually consistent read right after it could.
func (l *Loaders) RememberOrder(ctx context.Context, o *repository.Order, items []*repository.OrderItem) {
	written := make([]repository.Entity, 0, 1+len(items))
	written = append(written, o)
	for _, it := range items {
		written = append(written, it)
	}
	l.Remember(ctx, written...)
}

// Customers lists customers by name (AP7) and primes them.
func (l *Loaders) Customers(ctx context.Context, args repository.PageArgs) (repository.Page[*repository.Customer], error) {
	return memoize(&l.memo, fmt.Sprintf("customers|%d|%s", args.First, args.After), func() (repository.Page[*repository.Customer], error) {
		p, err := l.repo.ListCustomers(ctx, args)
		prime(ctx, l, p.Items...)
		return p, err
	})
}

// OrdersOfCustomer pages through a customer's orders, newest first (AP16), and primes them and,
// when they came with the orders (no status filter), their items. With a status filter, the
// order lists of one level run together (see together) and, withItems, the items of all their
// orders are looked up in one batch when the last Query is back.
func (l *Loaders) OrdersOfCustomer(ctx context.Context, customer string, f repository.OrderFilter, args repository.PageArgs, withItems bool) (repository.Page[*repository.Order], error) {
	return memoize(&l.memo, ordersKey(customer, f, args), func() (repository.Page[*repository.Order], error) {
		if f.Status != nil {
			// GSI1 holds the orders without their items: the customers' lists of this level
			// return together, and their items are looked up in one batch.
			return together(ctx, l, l.statusOrders(ctx, customer, f, args), itemKeys(withItems))
		}
		p, items, err := l.repo.OrdersOfCustomer(ctx, customer, f, args)
		prime(ctx, l, p.Items...)
		prime(ctx, l, items...)
		return p, err
	})
}

// StartOrdersOfCustomer starts a customer's status-filtered order list now, without waiting:
// nodes(ids:) calls it for all its customers in one loop, so that their lists meet in one level
// batch (see together) however late gqlgen starts their resolvers. OrdersOfCustomer with the same
// arguments then waits for it.
func (l *Loaders) StartOrdersOfCustomer(ctx context.Context, customer string, f repository.OrderFilter, args repository.PageArgs, withItems bool) {
	if l.perParent || f.Status == nil {
		return
	}
	memoizeStart(&l.memo, ordersKey(customer, f, args), func() func() (repository.Page[*repository.Order], error) {
		return togetherStart(ctx, l, l.statusOrders(ctx, customer, f, args), itemKeys(withItems))
	})
}

// itemKeys names the item keys of a page of orders, when the operation asks for items.
func itemKeys(withItems bool) func(repository.Page[*repository.Order]) []repository.Key {
	if !withItems {
		return nil
	}
	return func(p repository.Page[*repository.Order]) []repository.Key {
		var keys []repository.Key
		for _, o := range p.Items {
			keys = append(keys, o.ItemKeys()...)
		}
		return keys
	}
}

// statusOrders is the Query of a customer's orders of one status (GSI1), priming the orders.
func (l *Loaders) statusOrders(ctx context.Context, customer string, f repository.OrderFilter, args repository.PageArgs) func() (repository.Page[*repository.Order], error) {
	return func() (repository.Page[*repository.Order], error) {
		p, _, err := l.repo.OrdersOfCustomer(ctx, customer, f, args)
		prime(ctx, l, p.Items...)
		return p, err
	}
}

// ordersKey names one page of one customer's order list in the memo (first 0 is the default).
func ordersKey(customer string, f repository.OrderFilter, args repository.PageArgs) string {
	return fmt.Sprintf("orders|%s|%s|%s|%s|%d|%s", customer, ptrString(f.Status), timeString(f.PlacedAfter), timeString(f.PlacedBefore), pageSize(args.First), args.After)
}

type customerWithOrders struct {
	customer *repository.Customer
	orders   repository.Page[*repository.Order]
}

// CustomerWithOrders reads a customer with its newest orders and their items in ONE Query
// (AP15+AP16+AP17) and primes all of them.
func (l *Loaders) CustomerWithOrders(ctx context.Context, customer string, first int) (*repository.Customer, repository.Page[*repository.Order], error) {
	r, err := memoize(&l.memo, fmt.Sprintf("customer+orders|%s|%d", customer, first), func() (customerWithOrders, error) {
		c, orders, items, err := l.repo.CustomerWithOrders(ctx, customer, first)
		if err != nil {
			return customerWithOrders{}, err
		}
		prime(ctx, l, c)
		prime(ctx, l, orders.Items...)
		prime(ctx, l, items...)
		return customerWithOrders{c, orders}, nil
	})
	return r.customer, r.orders, err
}

// OrdersByStatus lists the orders of one status across all customers (AP20: one Query per shard,
// merged) and primes them.
func (l *Loaders) OrdersByStatus(ctx context.Context, status repository.OrderStatus, f repository.OrderFilter, args repository.PageArgs) (repository.Page[*repository.Order], error) {
	key := fmt.Sprintf("ordersByStatus|%s|%s|%s|%d|%s", status, timeString(f.PlacedAfter), timeString(f.PlacedBefore), args.First, args.After)
	return memoize(&l.memo, key, func() (repository.Page[*repository.Order], error) {
		p, err := l.repo.OrdersByStatus(ctx, status, f.PlacedAfter, f.PlacedBefore, args)
		prime(ctx, l, p.Items...)
		return p, err
	})
}
