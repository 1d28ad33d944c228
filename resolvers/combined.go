package resolvers

import (
	"context"

	"singletable/graph/model"
	"singletable/loaders"
	"singletable/planner"
	"singletable/repository"
)

// combinedRead is how a list's Combined read (planner.Field.Combined) runs for an object asked for
// by ID: start starts it as soon as the ID is known; read waits for it and returns the object,
// its GraphQL object holding the page (for the list field whose response key is u.Alias), and
// the page's elements, whose level the root level then reads ahead.
type combinedRead struct {
	start func(ctx context.Context, l *loaders.Loaders, parts []string, u *planner.ListUse)
	read  func(ctx context.Context, l *loaders.Loaders, parts []string, u *planner.ListUse) (repository.Entity, model.Node, []repository.Entity, error)
}

// combinedReads bind each list with a Combined read to the loader call that makes it.
var combinedReads = map[*planner.Field]combinedRead{
	planner.OrganizationUsers: {
		start: func(ctx context.Context, l *loaders.Loaders, p []string, u *planner.ListUse) {
			l.StartOrganizationWithUsers(ctx, p[0], u.Args.First)
		},
		read: func(ctx context.Context, l *loaders.Loaders, p []string, u *planner.ListUse) (repository.Entity, model.Node, []repository.Entity, error) {
			o, users, err := l.OrganizationWithUsers(ctx, p[0], u.Args.First)
			if err != nil {
				return nil, nil, nil, err
			}
			return o, &model.Organization{Organization: o, UsersAhead: &users, UsersAheadFor: u.Alias}, entities(users.Items), nil
		},
	},
	planner.UserTickets: {
		start: func(ctx context.Context, l *loaders.Loaders, p []string, u *planner.ListUse) {
			l.StartUserWithTickets(ctx, p[0], p[1], u.Args.First)
		},
		read: func(ctx context.Context, l *loaders.Loaders, p []string, u *planner.ListUse) (repository.Entity, model.Node, []repository.Entity, error) {
			usr, tickets, err := l.UserWithTickets(ctx, p[0], p[1], u.Args.First)
			if err != nil {
				return nil, nil, nil, err
			}
			return usr, &model.User{User: usr, TicketsAhead: &tickets, TicketsAheadFor: u.Alias}, entities(tickets.Items), nil
		},
	},
	planner.CustomerOrders: {
		start: func(ctx context.Context, l *loaders.Loaders, p []string, u *planner.ListUse) {
			l.StartCustomerWithOrders(ctx, p[0], u.Args.First)
		},
		read: func(ctx context.Context, l *loaders.Loaders, p []string, u *planner.ListUse) (repository.Entity, model.Node, []repository.Entity, error) {
			c, orders, err := l.CustomerWithOrders(ctx, p[0], u.Args.First)
			if err != nil {
				return nil, nil, nil, err
			}
			return c, &model.Customer{Customer: c, OrdersAhead: &orders, OrdersAheadFor: u.Alias}, entities(orders.Items), nil
		},
	},
	planner.ProductInventory: {
		start: func(ctx context.Context, l *loaders.Loaders, p []string, u *planner.ListUse) {
			l.StartProductWithInventory(ctx, p[0], u.Args.First)
		},
		read: func(ctx context.Context, l *loaders.Loaders, p []string, u *planner.ListUse) (repository.Entity, model.Node, []repository.Entity, error) {
			pr, stock, err := l.ProductWithInventory(ctx, p[0], u.Args.First)
			if err != nil {
				return nil, nil, nil, err
			}
			return pr, &model.Product{Product: pr, InventoryAhead: &stock, InventoryAheadFor: u.Alias}, entities(stock.Items), nil
		},
	},
	planner.OrderItems: {
		start: func(ctx context.Context, l *loaders.Loaders, p []string, _ *planner.ListUse) {
			l.StartOrderWithItems(ctx, p[0], p[1])
		},
		read: func(ctx context.Context, l *loaders.Loaders, p []string, _ *planner.ListUse) (repository.Entity, model.Node, []repository.Entity, error) {
			o, _, err := l.OrderWithItems(ctx, p[0], p[1])
			if err != nil {
				return nil, nil, nil, err
			}
			return o, model.Orders.Wrap(o), nil, nil
		},
	},
}

// entities is items as entities.
func entities[T repository.Entity](items []T) []repository.Entity {
	es := make([]repository.Entity, len(items))
	for i, e := range items {
		es[i] = e
	}
	return es
}
