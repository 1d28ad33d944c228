package resolvers

import (
	"context"

	"singletable/auth"
	"singletable/graph/model"
	"singletable/loaders"
	"singletable/planner"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// plannedLevel is a level of the operation's plan (planner.Level) as the loaders take it: its
// lookups are the plan's, and its Start starts the plan's child lists through the loaders. It is
// one pointer, so comparable by the level's identity and free to put into an interface.
type plannedLevel struct{ *planner.Level }

var _ loaders.Level = plannedLevel{}

// levelOf is l for the loaders; nil when there is no level (nothing to read ahead).
func levelOf(l *planner.Level) loaders.Level {
	if l == nil {
		return nil
	}
	return plannedLevel{l}
}

// Start starts the child lists the plan asks for on objects, every object of a level at once.
func (p plannedLevel) Start(ctx context.Context, objects []repository.Entity) {
	if len(p.Lists()) == 0 || len(objects) == 0 {
		return
	}
	d, ok := model.NodeNamed(p.Type)
	if !ok {
		return
	}
	parents := make([][]string, 0, len(objects))
	for _, o := range objects {
		if parts := d.PartsOfAny(o); parts != nil {
			parents = append(parents, parts)
		}
	}
	startLists(ctx, p.Level, parents, nil)
}

// Targets are the plan's targets of the level's to-one fields, as levels of the loaders.
func (p plannedLevel) Targets(objects []repository.Entity, found func(repository.Key) (repository.Entity, bool)) []loaders.LevelObjects {
	return asLevels(p.Level.Targets(objects, found))
}

// RelationTargets are the plan's targets of the level's relations, as levels of the loaders.
func (p plannedLevel) RelationTargets(n int, objects []repository.Entity, found func(repository.Key) (repository.Entity, bool)) []loaders.LevelObjects {
	return asLevels(p.Level.RelationTargets(n, objects, found))
}

// asLevels is targets as levels of the loaders.
func asLevels(targets []planner.TargetObjects) []loaders.LevelObjects {
	out := make([]loaders.LevelObjects, len(targets))
	for i, t := range targets {
		out[i] = loaders.LevelObjects{Level: levelOf(t.Level), Objects: t.Objects}
	}
	return out
}

// StartsLists reports whether the plan starts child lists of the level's objects.
func (p plannedLevel) StartsLists() bool {
	for _, u := range p.Lists() {
		if u.Plain && listStarts[u.Field] != nil {
			return true
		}
	}
	return false
}

// startLists starts, for parents (given by their ID parts), every child list the level asks for
// in the plain form, except skip (the list read together with the parents, if any).
func startLists(ctx context.Context, l *planner.Level, parents [][]string, skip *planner.ListUse) {
	if len(parents) == 0 {
		return
	}
	ld := loaders.For(ctx)
	caller := auth.Caller(ctx)
	for _, u := range l.Lists() {
		// A list the caller may not read (auth's fieldPolicy) is not read ahead: its field is refused.
		if u.Plain && u != skip && caller.MayRead(u.Field.Type, u.Field.Name) {
			if start := listStarts[u.Field]; start != nil {
				start(ctx, ld, parents, u)
			}
		}
	}
}

// listStarts start a child list (a row of the plan's table) for parents, in the plain form the
// plan typed, keyed with the level of its elements: the binding of each list to its loader.
var listStarts = map[*planner.Field]func(ctx context.Context, l *loaders.Loaders, parents [][]string, u *planner.ListUse){
	planner.OrganizationUsers: func(ctx context.Context, l *loaders.Loaders, parents [][]string, u *planner.ListUse) {
		l.StartUsersOfOrganizations(ctx, parentIDs(parents), u.Args.Page(), levelOf(u.Nodes))
	},
	planner.UserTickets: func(ctx context.Context, l *loaders.Loaders, parents [][]string, u *planner.ListUse) {
		l.StartTicketsOfUsers(ctx, parentPairs(parents), ticketFilter(u.Args), u.Args.Page(), levelOf(u.Nodes))
	},
	planner.TicketHistory: func(ctx context.Context, l *loaders.Loaders, parents [][]string, u *planner.ListUse) {
		l.StartTicketHistories(ctx, parentPairs(parents), u.Args.Page(), levelOf(u.Nodes))
	},
	planner.CustomerOrders:         startOrders,
	planner.CustomerOrdersByStatus: startOrders,
	planner.DepartmentEmployees:    startInverse(hr.RelDepartment),
	planner.EmployeeReports:        startInverse(hr.RelManager),
	planner.EmployeeMentees:        startInverse(hr.RelMentor),
	planner.WarehouseEmployees:     startInverse(hr.RelWarehouse),
	planner.ProductInventory:       startProductLists,
	planner.ProductOrderItems:      startProductLists,
	planner.EmployeeAccounts: func(ctx context.Context, l *loaders.Loaders, parents [][]string, u *planner.ListUse) {
		l.StartAccountsOfReps(ctx, parentIDs(parents), u.Args.Page(), levelOf(u.Nodes))
	},
	planner.EmployeeAccountOrders: func(ctx context.Context, l *loaders.Loaders, parents [][]string, u *planner.ListUse) {
		l.StartOrdersOfReps(ctx, parentIDs(parents), orderFilter(u.Args), u.Args.Page(), levelOf(u.Nodes))
	},
}

func startOrders(ctx context.Context, l *loaders.Loaders, parents [][]string, u *planner.ListUse) {
	l.StartOrdersOfCustomers(ctx, parentIDs(parents), orderFilter(u.Args), u.Args.Page(), levelOf(u.Nodes))
}

func startInverse(rel hr.RelationType) func(context.Context, *loaders.Loaders, [][]string, *planner.ListUse) {
	return func(ctx context.Context, l *loaders.Loaders, parents [][]string, u *planner.ListUse) {
		l.StartInverseLists(ctx, rel, parentIDs(parents), u.Args.Page(), levelOf(u.Nodes))
	}
}

// ticketFilter is a ticket list's filter in the plan's typed arguments.
func ticketFilter(a planner.ListArgs) saas.TicketFilter {
	return saas.TicketFilter{Status: status[saas.TicketStatus](a.Status), CreatedAfter: a.After, CreatedBefore: a.Before}
}

// orderFilter is an order list's filter in the plan's typed arguments.
func orderFilter(a planner.ListArgs) commerce.OrderFilter {
	return commerce.OrderFilter{Status: status[commerce.OrderStatus](a.Status), PlacedAfter: a.After, PlacedBefore: a.Before}
}

// status is an optional status argument as its enum type.
func status[S ~string](s *string) *S {
	if s == nil {
		return nil
	}
	v := S(*s)
	return &v
}

// parentIDs is the first ID part of each parent (the id of an organization, a customer, a
// department, an employee).
func parentIDs(parents [][]string) []string {
	out := make([]string, len(parents))
	for i, p := range parents {
		out[i] = p[0]
	}
	return out
}

// parentPairs is the two ID parts of each parent (a user's or a ticket's organization and id).
func parentPairs(parents [][]string) [][2]string {
	out := make([][2]string, len(parents))
	for i, p := range parents {
		out[i] = [2]string{p[0], p[1]}
	}
	return out
}
