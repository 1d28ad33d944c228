package resolvers

import (
	"context"
	"errors"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"golang.org/x/sync/errgroup"

	"singletable/apperr"
	"singletable/auth"
	"singletable/graph/model"
	"singletable/loaders"
	"singletable/repository"
)

// maxNodes bounds the IDs one `nodes` call may ask for.
const maxNodes = 100

// readAhead says which child lists of an object fetched by ID can be read in the same Query as
// the object itself, found by looking at the fields the operation asks for:
//
//   - Organization.users without `after`: the organization's item collection (AP2);
//   - User.tickets without `after` or filters: the user's GSI1 collection read backwards (AP5).
//   - Customer.orders without `after` or filters: the customer's collection read backwards, with
//     the orders' items (AP15–AP17);
//   - Order.items: the order's part of its customer's collection (AP18 + AP17), for one order
//     (order(id), node(id)); nodes(ids:) looks several orders and their items up by key instead,
//     two BatchGetItem calls in all rather than one Query per order.
//
// Zero means "not asked, or asked in a form the combined Query cannot answer".
type readAhead struct {
	orgUsersFirst    int
	userTicketsFirst int

	customerOrdersFirst int
	orderItems          bool
}

// readAheadFor inspects the selection set of the current field (node, nodes, organization, ...).
func readAheadFor(ctx context.Context) readAhead {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || !loaders.For(ctx).ReadAhead() {
		return readAhead{}
	}
	opCtx := graphql.GetOperationContext(ctx)
	var ra readAhead
	for _, typ := range []string{model.TypeOrganization, model.TypeUser} {
		for _, f := range graphql.CollectFields(opCtx, fc.Field.Selections, []string{typ, "Node"}) {
			args := f.ArgumentMap(opCtx.Variables)
			switch {
			case typ == model.TypeOrganization && f.Name == "users" && ra.orgUsersFirst == 0 && args["after"] == nil:
				ra.orgUsersFirst = firstArg(args)
			case typ == model.TypeUser && f.Name == "tickets" && ra.userTicketsFirst == 0 &&
				args["after"] == nil && args["status"] == nil && args["createdAfter"] == nil && args["createdBefore"] == nil:
				ra.userTicketsFirst = firstArg(args)
			}
		}
	}
	ra.customerOrdersFirst = customerOrdersReadAhead(opCtx, fc.Field.Selections)
	ra.orderItems = orderItemsReadAhead(opCtx, fc.Field.Selections)
	return ra
}

// firstArg is `first` if it is a valid page size, else 0 (the field's own resolver will then
// report the error).
func firstArg(args map[string]any) int {
	n, ok := intArg(args, "first")
	if !ok {
		return repository.DefaultPageSize
	}
	if n < 1 || n > repository.MaxPageSize {
		return 0
	}
	return n
}

// resolveNode fetches the object a global ID names.
func (r *Resolver) resolveNode(ctx context.Context, field, id string, ra readAhead) (model.Node, error) {
	typ, parts, err := model.DecodeID(field, id)
	if err != nil {
		return nil, err
	}
	d, err := visible(ctx, typ, parts, "")
	if err != nil {
		return nil, err
	}
	switch typ {
	case model.TypeOrganization:
		o, err := r.organization(ctx, parts[0], ra)
		if err != nil {
			return nil, err
		}
		return o, nil
	case model.TypeUser:
		u, err := r.user(ctx, parts[0], parts[1], ra)
		if err != nil {
			return nil, err
		}
		return u, nil
	case model.TypeTicket:
		t, err := r.ticket(ctx, parts[0])
		if err != nil {
			return nil, err
		}
		if err := visibleTicket(ctx, d, t.Ticket, "ticket"); err != nil {
			return nil, err
		}
		return t, nil
	case model.TypeCustomer:
		c, err := r.customer(ctx, parts[0], ra)
		if err != nil {
			return nil, err
		}
		return c, nil
	case model.TypeOrder:
		o, err := r.order(ctx, parts[0], parts[1], ra)
		if err != nil {
			return nil, err
		}
		return o, nil
	case model.TypeDepartment, model.TypeEmployee, model.TypeLocation:
		return r.hrNode(ctx, typ, parts)
	}
	return nil, apperr.InvalidInput(field, "%s is not a valid ID", field)
}

// user fetches a user: with its first page of tickets in one Query when the operation asks for
// them in that form (AP4 + AP5), else by key through the loader.
func (r *Resolver) user(ctx context.Context, org, id string, ra readAhead) (*model.User, error) {
	l := loaders.For(ctx)
	if ra.userTicketsFirst > 0 {
		u, tickets, err := l.UserWithTickets(ctx, org, id, ra.userTicketsFirst)
		if err != nil {
			return nil, err
		}
		return &model.User{User: u, TicketsAhead: &tickets, TicketsAheadFirst: ra.userTicketsFirst}, nil
	}
	u, err := l.User(ctx, org, id)
	if err != nil {
		return nil, err
	}
	return &model.User{User: u}, nil
}

// ticket fetches a ticket by key through the loader (AP6).
func (r *Resolver) ticket(ctx context.Context, id string) (*model.Ticket, error) {
	t, err := loaders.For(ctx).Ticket(ctx, id)
	if err != nil {
		return nil, err
	}
	return &model.Ticket{Ticket: t}, nil
}

func (r *Resolver) organization(ctx context.Context, id string, ra readAhead) (*model.Organization, error) {
	l := loaders.For(ctx)
	if ra.orgUsersFirst > 0 {
		o, users, err := l.OrganizationWithUsers(ctx, id, ra.orgUsersFirst)
		if err != nil {
			return nil, err
		}
		return &model.Organization{Organization: o, UsersAhead: &users, UsersAheadFirst: ra.orgUsersFirst}, nil
	}
	o, err := l.Organization(ctx, id)
	if err != nil {
		return nil, err
	}
	return &model.Organization{Organization: o}, nil
}

// resolveNodes fetches several objects concurrently, so that key lookups land in one batch and
// read-ahead Queries run side by side. A failed entry is null with its own error at its index.
func (r *Resolver) resolveNodes(ctx context.Context, ids []string) ([]model.Node, error) {
	if len(ids) > maxNodes {
		return nil, apperr.InvalidInput("ids", "ask for at most %d ids at once", maxNodes)
	}
	ra := readAheadFor(ctx)
	ra.orderItems = false // see readAhead
	// Send every plain key lookup at once, in one batch (loaders.FetchNow): nodes holds all the
	// keys of its level, so waiting for the loader's window would only add its length. The child
	// lists whose elements need one batch together start here too, all in one loop.
	var keys []repository.Key
	var departmentIDs, customerIDs []string
	caller := auth.Caller(ctx)
	for _, id := range ids {
		typ, parts, err := model.DecodeID("ids", id)
		if err != nil || caller.SeesID(typ, parts) == auth.Deny {
			continue // answered without a read
		}
		switch typ {
		case model.TypeDepartment:
			departmentIDs = append(departmentIDs, parts[0])
		case model.TypeCustomer:
			customerIDs = append(customerIDs, parts[0])
		}
		if (typ == model.TypeOrganization && ra.orgUsersFirst > 0) || (typ == model.TypeUser && ra.userTicketsFirst > 0) ||
			(typ == model.TypeCustomer && ra.customerOrdersFirst > 0) {
			continue // read with its first child page by one Query instead
		}
		if k, ok := nodeKey(typ, parts); ok {
			keys = append(keys, k)
		}
	}
	loaders.For(ctx).FetchNow(ctx, keys...)
	startDepartmentEmployees(ctx, departmentIDs)
	startCustomerOrders(ctx, customerIDs)

	out := make([]model.Node, len(ids))
	errs := make([]error, len(ids))
	var g errgroup.Group
	for i, id := range ids {
		g.Go(func() error {
			defer func() {
				// gqlgen recovers panics only on its own goroutines.
				if p := recover(); p != nil {
					errs[i] = graphql.GetOperationContext(ctx).Recover(ctx, p)
				}
			}()
			out[i], errs[i] = r.resolveNode(ctx, "ids", id, ra)
			return nil // each id's error is its own entry's
		})
	}
	_ = g.Wait()
	path := graphql.GetPath(ctx)
	var tickets []*repository.Ticket
	var users []*repository.User
	var orders []*repository.Order
	var departments []*repository.Department
	var employees []*repository.Employee
	for i, err := range errs {
		if err != nil {
			out[i] = nil
			p := append(ast.Path{}, path...)
			err = withCode(err)
			graphql.AddError(ctx, &gqlerror.Error{Err: err, Message: err.Error(), Path: append(p, ast.PathIndex(i))})
			continue
		}
		switch n := out[i].(type) {
		case *model.Ticket:
			tickets = append(tickets, n.Ticket)
		case *model.User:
			users = append(users, n.User)
		case *model.Order:
			orders = append(orders, n.Order)
		case *model.Department:
			departments = append(departments, n.Department)
		case *model.Employee:
			employees = append(employees, n.Employee)
		}
	}
	// The next level: the to-one fields selected on these nodes, and the relation items of the
	// employees, all in one batch (sent at once: nodes holds every key of this level).
	var next []repository.Key
	next = append(next, refKeys(listSelection(ctx, model.TypeTicket), tickets)...)
	next = append(next, refKeys(listSelection(ctx, model.TypeUser), users)...)
	next = append(next, ticketListRefKeys(ctx, users)...)
	next = append(next, refKeys(listSelection(ctx, model.TypeOrder), orders)...)
	next = append(next, refKeys(listSelection(ctx, model.TypeDepartment), departments)...)
	sel := listSelection(ctx, model.TypeEmployee)
	ahead := loaders.EmployeeAhead{Department: sel["department"], Manager: sel["manager"], Mentor: sel["mentor"]}
	if len(employees) > 0 && (ahead.Department || ahead.Manager || ahead.Mentor) {
		loaders.For(ctx).ReadAheadRelations(ctx, employees, ahead, next...)
	} else {
		loaders.For(ctx).FetchNow(ctx, next...)
	}
	return out, nil
}

// withCode gives an error that has no code (not one of ours: a library's, say) one by apperr.Classify,
// as the server does for every field's error (server.codeResolverErrors); nodes(ids:) adds its
// entries' errors itself, past that hook.
func withCode(err error) error {
	var gerr *gqlerror.Error
	if errors.As(err, &gerr) && gerr.Extensions["code"] != nil {
		return err
	}
	return apperr.Classify("node", err)
}
