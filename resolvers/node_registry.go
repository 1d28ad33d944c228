package resolvers

import (
	"context"

	"singletable/graph/model"
	"singletable/loaders"
	"singletable/planner"
	"singletable/repository"
)

// nodeType is what node(id:), nodes(ids:) and the typed lookups (user(id:), order(id:), …) read
// ahead for one type of object with a global ID, besides what its descriptor (graph/model) says
// of it: the ID, the key, the scope and the wrap.
type nodeType struct {
	node model.AnyNode
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
}

// nodeTypes is the node registry, by the type name global IDs carry.
var nodeTypes = map[string]nodeType{
	model.Organizations.Name: {
		node: model.Organizations,
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
	model.Users.Name: {
		node:       model.Users,
		startLevel: startTicketLists,
		combined: func(ctx context.Context, p []string, first int) (repository.Entity, model.Node, error) {
			u, tickets, err := loaders.For(ctx).UserWithTickets(ctx, p[0], p[1], first)
			if err != nil {
				return nil, nil, err
			}
			return u, &model.User{User: u, TicketsAhead: &tickets, TicketsAheadFirst: first}, nil
		},
	},
	model.Tickets.Name: {node: model.Tickets},
	model.Customers.Name: {
		node: model.Customers,
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
	model.Orders.Name: {
		node: model.Orders,
		combined: func(ctx context.Context, p []string, _ int) (repository.Entity, model.Node, error) {
			o, _, err := loaders.For(ctx).OrderWithItems(ctx, p[0], p[1])
			if err != nil {
				return nil, nil, err
			}
			return o, &model.Order{Order: o}, nil
		},
	},
	model.Departments.Name: {
		node:       model.Departments,
		start:      startDepartmentEmployees,
		startLevel: levelByID(func(d *repository.Department) string { return d.ID }, startDepartmentEmployees),
	},
	model.Employees.Name: {node: model.Employees},
	model.Locations.Name: {node: model.Locations},
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
