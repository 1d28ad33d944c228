package resolvers

import (
	"context"

	"singletable/graph/model"
	"singletable/loaders"
	"singletable/planner"
	"singletable/repository"
)

// connect finishes a list resolver: on success it queues the lookups of the to-one fields the
// operation selects on the page's elements (planner.RefKeys), in one loop so that the whole level
// lands in one batch, starts the elements' child lists together (startChildLists), and builds
// the connection with build. Used as
// connect(ctx, build)(loader call).
func connect[T repository.Entity, C any](ctx context.Context, build func(repository.Page[T]) C) func(repository.Page[T], error) (C, error) {
	return func(p repository.Page[T], err error) (C, error) {
		if err != nil {
			var zero C
			return zero, err
		}
		nodes := planner.Nodes(ctx)
		loaders.For(ctx).Prefetch(ctx, planner.RefKeys(nodes, p.Items)...)
		startChildLists(ctx, nodes, p.Items)
		return build(p), nil
	}
}

// ahead is the page a parent read together with its list (a combined read), when it answers the
// list field being resolved; ok is false otherwise.
func ahead[T any](ctx context.Context, c planner.Combined, p *repository.Page[T], first int) (repository.Page[T], bool) {
	if p == nil || !c.Answers(ctx, first) {
		return repository.Page[T]{}, false
	}
	return *p, true
}

// usersOf is an organization's page of users: the one read with the organization, or its own
// Query (AP2, AP3).
func usersOf(ctx context.Context, o *model.Organization, first *int, after *string) (repository.Page[*repository.User], error) {
	if p, ok := ahead(ctx, planner.OrganizationUsers, o.UsersAhead, o.UsersAheadFirst); ok {
		return p, nil
	}
	return loaders.For(ctx).UsersOfOrganization(ctx, o.ID, pageArgs(first, after))
}

// ticketsOf is a user's page of tickets: the one read with the user, or its own Query (AP5).
// Every ticket of the list has this user's organization and this user as reporter: those lookups
// are queued before the Query, next to the sibling lists' own, rather than when each returns.
func ticketsOf(ctx context.Context, u *model.User, first *int, after *string, f repository.TicketFilter) (repository.Page[*repository.Ticket], error) {
	if p, ok := ahead(ctx, planner.UserTickets, u.TicketsAhead, u.TicketsAheadFirst); ok {
		return p, nil
	}
	l := loaders.For(ctx)
	l.Prefetch(ctx, planner.ParentKeys(model.Users.Name, "tickets", planner.Nodes(ctx), []*repository.User{u.User})...)
	return l.TicketsOfUser(ctx, u.OrgID, u.ID, f, pageArgs(first, after))
}

// ordersOf is a customer's page of orders: the one read with the customer, or its own Query
// (AP16), with the orders' items when the operation asks for them.
func ordersOf(ctx context.Context, c *model.Customer, first *int, after *string, f repository.OrderFilter) (repository.Page[*repository.Order], error) {
	if p, ok := ahead(ctx, planner.CustomerOrders, c.OrdersAhead, c.OrdersAheadFirst); ok {
		return p, nil
	}
	return loaders.For(ctx).OrdersOfCustomer(ctx, c.ID, f, pageArgs(first, after), planner.Nodes(ctx).Has("items"))
}

// startDepartmentEmployees starts the employee lists (AP9) that the selection s asks for on the
// departments whose ID parts are ids, before the departments themselves are read: the lists'
// Queries run alongside the departments' lookup instead of one round after it. The resolvers of
// Department.employees then find the lists under the same key in the list loader. wholeLevel (the
// ids are every parent of the level) dispatches them at once, without a batch window. Only the plain
// form is started (one `employees` field without `after`), so that a started list is always the
// one asked for.
func startDepartmentEmployees(ctx context.Context, s planner.Selection, ids [][]string, wholeLevel bool) {
	list, args, ok := s.Sole("employees")
	first := planner.FirstArg(args)
	if !ok || args["after"] != nil || first == 0 {
		return
	}
	loaders.For(ctx).StartEmployeesOfDepartments(ctx, firstParts(ids), repository.PageArgs{First: first}, planner.EmployeeAhead(s.ChildNodes(list)), wholeLevel)
}

// startCustomerOrders starts, for the customers whose ID parts are ids, the status-filtered order
// lists the selection s asks for, in one loop: such lists come from GSI1 without their items, and
// started together they meet in one level batch, so that all their items are looked up in one
// BatchGetItem (loaders.StartOrdersOfCustomers). Only the plain filtered form is started (one
// `orders` field with a status and no `after` or placed range).
func startCustomerOrders(ctx context.Context, s planner.Selection, ids [][]string, wholeLevel bool) {
	list, args, found := s.Sole("orders")
	if !found {
		return
	}
	status, ok := args["status"].(string)
	first := planner.FirstArg(args)
	if !ok || first == 0 || args["after"] != nil || args["placedAfter"] != nil || args["placedBefore"] != nil {
		return
	}
	withItems := s.ChildNodes(list).Has("items")
	st := repository.OrderStatus(status)
	loaders.For(ctx).StartOrdersOfCustomers(ctx, firstParts(ids), repository.OrderFilter{Status: &st}, repository.PageArgs{First: first}, withItems, wholeLevel)
}

// startTicketLists starts the ticket lists (AP5) that the selection s asks for on users, every
// user of a level, in one loop (loaders.StartTicketsOfUsers). Only the plain form is started (one
// `tickets` field with neither `after` nor filters), so that a started list is always the one its
// resolver asks for; the caller leaves out users read together with their tickets.
func startTicketLists(ctx context.Context, s planner.Selection, level []repository.Entity) {
	_, args, ok := s.Sole("tickets")
	first := planner.UserTickets.FirstOf(args)
	if !ok || first == 0 {
		return
	}
	loaders.For(ctx).StartTicketsOfUsers(ctx, entitiesOf[*repository.User](level), repository.TicketFilter{}, repository.PageArgs{First: first})
}

// firstParts is the first key part of each decoded ID (the id of a department or customer).
func firstParts(ids [][]string) []string {
	out := make([]string, len(ids))
	for i, parts := range ids {
		out[i] = parts[0]
	}
	return out
}

// employeeAhead is what the employee list being resolved reads ahead for its employees: the
// relations its nodes ask for (planner.EmployeeAhead).
func employeeAhead(ctx context.Context) loaders.EmployeeAhead {
	return planner.EmployeeAhead(planner.Nodes(ctx))
}
