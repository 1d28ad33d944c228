package resolvers

import (
	"context"

	"singletable/apperr"
	"singletable/graph/model"
	"singletable/loaders"
	"singletable/planner"
	"singletable/repository"
)

// nodeType is one row of the node registry: what node(id:), nodes(ids:) and the typed lookups
// (user(id:), order(id:), …) need to know about one type of object with a global ID. Adding a
// node type is adding a row; no switch over types elsewhere.
type nodeType struct {
	// kind names the object in a NOT_FOUND error.
	kind string
	// key is the table key of the object the ID's parts name.
	key func(parts []string) (repository.Key, error)
	// wrap turns the stored entity into its GraphQL object.
	wrap func(e repository.Entity) model.Node
	// combined reads the object together with the first page (of first elements) of its
	// combined child list (planner.CombinedFor); nil for types without one.
	combined func(ctx context.Context, parts []string, first int) (repository.Entity, model.Node, error)
	// aheadItems are the elements of the child page a combined read brought with the object
	// (nil for other types, or when there is none).
	aheadItems func(n model.Node) []repository.Entity
	// start starts, before the objects are read, the child lists the selection asks for on the
	// objects whose ID parts are ids (their keys follow from the IDs); wholeLevel says ids are
	// every object of the level (nodes(ids:)), so the lists need not wait for siblings. nil for
	// none.
	start func(ctx context.Context, s planner.Selection, ids [][]string, wholeLevel bool)
	// startLevel starts, in one loop, the child lists the selection asks for on every object of
	// a level once they are read (a page of them, or nodes(ids:)'s): their Queries then start
	// together instead of one by one as gqlgen reaches each object's resolver. nil for none.
	startLevel func(ctx context.Context, s planner.Selection, level []repository.Entity)
	// scope refuses, before any read, an ID outside the caller's scope (NOT_FOUND, as if it did
	// not exist). Every row must have one: a row without it is refused to every caller.
	scope func(ctx context.Context, parts []string) error
	// scopeRead refuses, after the read, an object whose ID does not tell its tenant; nil lets
	// every caller through.
	scopeRead func(ctx context.Context, e repository.Entity) error
}

// nodeTypes is the node registry, by the type name global IDs carry.
var nodeTypes = map[string]nodeType{
	model.TypeOrganization: {
		scope: idScope(model.TypeOrganization),
		kind:  "organization",
		key:   func(p []string) (repository.Key, error) { return repository.OrganizationKey(p[0]) },
		wrap:  wrapper(organizationNode),
		combined: func(ctx context.Context, p []string, first int) (repository.Entity, model.Node, error) {
			o, users, err := loaders.For(ctx).OrganizationWithUsers(ctx, p[0], first)
			if err != nil {
				return nil, nil, err
			}
			return o, &model.Organization{Organization: o, UsersAhead: &users, UsersAheadFirst: first}, nil
		},
		aheadItems: func(n model.Node) []repository.Entity {
			if o, ok := n.(*model.Organization); ok && o.UsersAhead != nil {
				return entities(o.UsersAhead.Items)
			}
			return nil
		},
	},
	model.TypeUser: {
		scope:      idScope(model.TypeUser),
		kind:       "user",
		key:        func(p []string) (repository.Key, error) { return repository.UserKey(p[0], p[1]) },
		wrap:       wrapper(userNode),
		startLevel: startTicketLists,
		combined: func(ctx context.Context, p []string, first int) (repository.Entity, model.Node, error) {
			u, tickets, err := loaders.For(ctx).UserWithTickets(ctx, p[0], p[1], first)
			if err != nil {
				return nil, nil, err
			}
			return u, &model.User{User: u, TicketsAhead: &tickets, TicketsAheadFirst: first}, nil
		},
	},
	model.TypeTicket: {
		scope:     idScope(model.TypeTicket),
		scopeRead: ticketScope,
		kind:      "ticket",
		key:       func(p []string) (repository.Key, error) { return repository.TicketKey(p[0]) },
		wrap:      wrapper(ticketNode),
	},
	model.TypeCustomer: {
		scope: idScope(model.TypeCustomer),
		kind:  "customer",
		key:   func(p []string) (repository.Key, error) { return repository.CustomerKey(p[0]) },
		wrap:  wrapper(customerNode),
		combined: func(ctx context.Context, p []string, first int) (repository.Entity, model.Node, error) {
			c, orders, err := loaders.For(ctx).CustomerWithOrders(ctx, p[0], first)
			if err != nil {
				return nil, nil, err
			}
			return c, &model.Customer{Customer: c, OrdersAhead: &orders, OrdersAheadFirst: first}, nil
		},
		start:      startCustomerOrders,
		startLevel: levelByID(func(c *repository.Customer) string { return c.ID }, startCustomerOrders),
	},
	model.TypeOrder: {
		scope: idScope(model.TypeOrder),
		kind:  "order",
		key:   func(p []string) (repository.Key, error) { return repository.OrderKey(p[0], p[1]) },
		wrap:  wrapper(orderNode),
		combined: func(ctx context.Context, p []string, _ int) (repository.Entity, model.Node, error) {
			o, _, err := loaders.For(ctx).OrderWithItems(ctx, p[0], p[1])
			if err != nil {
				return nil, nil, err
			}
			return o, &model.Order{Order: o}, nil
		},
	},
	model.TypeDepartment: {
		scope:      idScope(model.TypeDepartment),
		kind:       "department",
		key:        func(p []string) (repository.Key, error) { return repository.DepartmentKey(p[0]) },
		wrap:       wrapper(departmentNode),
		start:      startDepartmentEmployees,
		startLevel: levelByID(func(d *repository.Department) string { return d.ID }, startDepartmentEmployees),
	},
	model.TypeEmployee: {
		scope: idScope(model.TypeEmployee),
		kind:  "employee",
		key:   func(p []string) (repository.Key, error) { return repository.EmployeeKey(p[0]) },
		wrap:  wrapper(employeeNode),
	},
	model.TypeLocation: {
		scope: idScope(model.TypeLocation),
		kind:  "location",
		key:   func(p []string) (repository.Key, error) { return repository.LocationKey(model.LocationRefOf(p)) },
		wrap:  wrapper(locationNode),
	},
}

// The GraphQL object of each type of stored entity: the registry rows' wrap (through wrapper)
// and what a mutation returns (saved).

func organizationNode(o *repository.Organization) *model.Organization {
	return &model.Organization{Organization: o}
}

func userNode(u *repository.User) *model.User {
	return &model.User{User: u}
}

func ticketNode(t *repository.Ticket) *model.Ticket {
	return &model.Ticket{Ticket: t}
}

func customerNode(c *repository.Customer) *model.Customer {
	return &model.Customer{Customer: c}
}

func orderNode(o *repository.Order) *model.Order {
	return &model.Order{Order: o}
}

func departmentNode(d *repository.Department) *model.Department {
	return &model.Department{Department: d}
}

func employeeNode(e *repository.Employee) *model.Employee {
	return &model.Employee{Employee: e}
}

func locationNode(l *repository.Location) *model.Location {
	return &model.Location{Location: l}
}

// wrapper adapts a typed wrap function to the registry's; an entity of another type (which a
// key of this type cannot hold) wraps to nil.
func wrapper[T repository.Entity, M model.Node](wrap func(T) M) func(repository.Entity) model.Node {
	return func(e repository.Entity) model.Node {
		if t, ok := e.(T); ok {
			return wrap(t)
		}
		return nil
	}
}

// levelByID adapts a start function that takes IDs to a startLevel: the objects of a level read
// are every object of that level.
func levelByID[T repository.Entity](id func(T) string, start func(context.Context, planner.Selection, [][]string, bool)) func(context.Context, planner.Selection, []repository.Entity) {
	return func(ctx context.Context, s planner.Selection, level []repository.Entity) {
		var ids [][]string
		for _, e := range level {
			if t, ok := e.(T); ok {
				ids = append(ids, []string{id(t)})
			}
		}
		if len(ids) > 0 {
			start(ctx, s, ids, true)
		}
	}
}

// startChildLists starts the child lists the selection s asks for on every object of level
// (objects of s's type), if its type has any (nodeType.startLevel).
func startChildLists[T repository.Entity](ctx context.Context, s planner.Selection, level []T) {
	start := nodeTypes[s.Type()].startLevel
	if start == nil || len(level) == 0 {
		return
	}
	start(ctx, s, entities(level))
}

// entities is items as entities.
func entities[T repository.Entity](items []T) []repository.Entity {
	es := make([]repository.Entity, len(items))
	for i, e := range items {
		es[i] = e
	}
	return es
}

// startAheadLevel starts the child lists of the elements of the child pages that combined reads
// brought with nodes (objects of type typ): an organization's users read with it start their
// ticket lists here, all of a level in one loop, rather than when each organization's users
// resolver runs.
func startAheadLevel(ctx context.Context, typ string, nodes []model.Node) {
	row := nodeTypes[typ]
	combined, ok := planner.CombinedFor(typ)
	if row.aheadItems == nil || !ok || len(nodes) == 0 {
		return
	}
	s := planner.On(ctx, typ)
	list, args, ok := s.Sole(combined.List)
	if !ok || combined.FirstOf(args) == 0 {
		return
	}
	var level []repository.Entity
	for _, n := range nodes {
		level = append(level, row.aheadItems(n)...)
	}
	startChildLists(ctx, s.ChildNodes(list), level)
}

// toNode wraps what a to-one lookup returned as its GraphQL object of type M (the registry's wrap
// of the entity's type). Used as toNode[*model.Customer](loader call).
func toNode[M model.Node, E repository.Entity](e E, err error) (M, error) {
	var zero M
	if err != nil {
		return zero, err
	}
	for _, t := range nodeTypes {
		if m, ok := t.wrap(e).(M); ok {
			return m, nil
		}
	}
	return zero, apperr.NotFound("node")
}
