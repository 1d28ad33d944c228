package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"singletable/graph/model"
	"singletable/loaders"
	"singletable/planner"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/saas"
)

// The list resolvers read through the loaders with the plan of their elements' level
// (planner.Nodes): a list the plan started ahead for every parent of the level is the same read
// (its key holds that level), and what the elements need next (their lookups, their child lists)
// is the loaders' to do when the list is read. Each resolver is then one return of connection.

// connection finishes a list resolver: the connection build makes of the page, or the read's
// error. Used as connection(build)(loader call).
func connection[T any, C any](build func(repository.Page[T]) C) func(repository.Page[T], error) (C, error) {
	return func(p repository.Page[T], err error) (C, error) {
		if err != nil {
			var zero C
			return zero, err
		}
		return build(p), nil
	}
}

// nodes is the plan of the elements of the list being resolved, for the loaders.
func nodes(ctx context.Context) loaders.Level { return levelOf(planner.Nodes(ctx)) }

// readWith is the page a parent read together with its list (a combined read), when the list
// field being resolved is the one it was read for (its response key is alias); ok is false
// otherwise.
func readWith[T any](ctx context.Context, p *repository.Page[T], alias string) (repository.Page[T], bool) {
	fc := graphql.GetFieldContext(ctx)
	if p == nil || fc == nil || fc.Field.Alias != alias {
		return repository.Page[T]{}, false
	}
	return *p, true
}

// usersOf is an organization's page of users: the one read with the organization, or its own
// Query (AP2, AP3).
func usersOf(ctx context.Context, o *model.Organization, first *int, after *string) (repository.Page[*saas.User], error) {
	if p, ok := readWith(ctx, o.UsersAhead, o.UsersAheadFor); ok {
		return p, nil
	}
	return loaders.For(ctx).UsersOfOrganization(ctx, o.ID, pageArgs(first, after), nodes(ctx))
}

// ticketsOf is a user's page of tickets: the one read with the user, or its own Query (AP5).
func ticketsOf(ctx context.Context, u *model.User, first *int, after *string, f saas.TicketFilter) (repository.Page[*saas.Ticket], error) {
	if p, ok := readWith(ctx, u.TicketsAhead, u.TicketsAheadFor); ok {
		return p, nil
	}
	return loaders.For(ctx).TicketsOfUser(ctx, u.OrgID, u.ID, f, pageArgs(first, after), nodes(ctx))
}

// ordersOf is a customer's page of orders: the one read with the customer, or its own Query
// (AP16).
func ordersOf(ctx context.Context, c *model.Customer, first *int, after *string, f commerce.OrderFilter) (repository.Page[*commerce.Order], error) {
	if p, ok := readWith(ctx, c.OrdersAhead, c.OrdersAheadFor); ok {
		return p, nil
	}
	return loaders.For(ctx).OrdersOfCustomer(ctx, c.ID, f, pageArgs(first, after), nodes(ctx))
}
