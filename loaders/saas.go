package loaders

import (
	"context"

	"singletable/repository"
	"singletable/repository/saas"
)

// Organizations lists organizations (AP7), primes them, and reads ahead what their level needs
// (a root list is its whole level).
func (l *Loaders) Organizations(ctx context.Context, args repository.PageArgs, level Level) (repository.Page[*saas.Organization], error) {
	return l.lists.organizations.load(ctx, listPageOf(args, level))
}

// UsersOfOrganization pages through an organization's users (AP3) and primes them.
func (l *Loaders) UsersOfOrganization(ctx context.Context, org string, args repository.PageArgs, level Level) (repository.Page[*saas.User], error) {
	return l.lists.users.load(ctx, usersKey{org: org, listPage: listPageOf(args, level)})
}

// StartUsersOfOrganizations starts the user lists of orgs, every organization of a level, as one
// batch; UsersOfOrganization with the same arguments then waits for them.
func (l *Loaders) StartUsersOfOrganizations(ctx context.Context, orgs []string, args repository.PageArgs, level Level) {
	l.lists.users.startAll(ctx, keysOf(orgs, func(o string) usersKey { return usersKey{org: o, listPage: listPageOf(args, level)} }))
}

func (l *Loaders) readUsers(ctx context.Context, k usersKey) (repository.Page[*saas.User], error) {
	return l.repo.UsersOfOrganization(ctx, k.org, k.page.args())
}

// OrganizationWithUsers reads an organization with the first page of its users in one Query (AP2)
// and primes all of them.
func (l *Loaders) OrganizationWithUsers(ctx context.Context, org string, first int) (*saas.Organization, repository.Page[*saas.User], error) {
	r, err := l.lists.orgWithUsers.load(ctx, withChildrenKey{parent: org, first: first})
	return r.parent, r.children, err
}

// StartOrganizationWithUsers starts OrganizationWithUsers without waiting for it.
func (l *Loaders) StartOrganizationWithUsers(ctx context.Context, org string, first int) {
	l.lists.orgWithUsers.startAll(ctx, []withChildrenKey{{parent: org, first: first}})
}

func (l *Loaders) readOrgWithUsers(ctx context.Context, k withChildrenKey) (*saas.Organization, repository.Page[*saas.User], error) {
	return l.repo.OrganizationWithUsers(ctx, k.parent, k.first)
}

// TicketsOfUser pages through a user's tickets, newest first (AP5), and primes them.
func (l *Loaders) TicketsOfUser(ctx context.Context, org, user string, f saas.TicketFilter, args repository.PageArgs, level Level) (repository.Page[*saas.Ticket], error) {
	return l.lists.tickets.load(ctx, ticketsKeyOf(org, user, f, args, level))
}

// StartTicketsOfUsers starts the ticket lists (one page each, filter f) of users, given by their
// organization and id, every user of a level, as one batch; TicketsOfUser with the same
// arguments then waits for them.
func (l *Loaders) StartTicketsOfUsers(ctx context.Context, users [][2]string, f saas.TicketFilter, args repository.PageArgs, level Level) {
	l.lists.tickets.startAll(ctx, keysOf(users, func(u [2]string) ticketsKey { return ticketsKeyOf(u[0], u[1], f, args, level) }))
}

func (l *Loaders) readTickets(ctx context.Context, k ticketsKey) (repository.Page[*saas.Ticket], error) {
	return l.repo.TicketsOfUser(ctx, k.org, k.user, k.filter(), k.page.args())
}

// UserWithTickets reads a user with the first page of its newest tickets in one Query (AP5) and
// primes all of them.
func (l *Loaders) UserWithTickets(ctx context.Context, org, user string, first int) (*saas.User, repository.Page[*saas.Ticket], error) {
	r, err := l.lists.userWithTickets.load(ctx, withChildrenKey{parent: org, id: user, first: first})
	return r.parent, r.children, err
}

// StartUserWithTickets starts UserWithTickets without waiting for it.
func (l *Loaders) StartUserWithTickets(ctx context.Context, org, user string, first int) {
	l.lists.userWithTickets.startAll(ctx, []withChildrenKey{{parent: org, id: user, first: first}})
}

func (l *Loaders) readUserWithTickets(ctx context.Context, k withChildrenKey) (*saas.User, repository.Page[*saas.Ticket], error) {
	return l.repo.UserWithTickets(ctx, k.parent, k.id, k.first)
}

// TicketByID reads a ticket by its id alone (AP6 without the tenant: one Query of its partition,
// once per request however many fields name it) and primes it, so that the lookup by key that
// follows costs nothing. It serves the legacy ticket IDs of a caller who sees every organization
// (graph/model's completeTicket).
func (l *Loaders) TicketByID(ctx context.Context, id string) (*saas.Ticket, error) {
	return l.lists.ticketByID.load(ctx, id)
}

func (l *Loaders) readTicketByID(ctx context.Context, id string) (*saas.Ticket, error) {
	t, err := l.repo.TicketByID(ctx, id)
	if err != nil {
		return nil, err
	}
	prime(ctx, l, t)
	return t, nil
}

// TicketHistory pages through a ticket's versions, newest first (AP21).
func (l *Loaders) TicketHistory(ctx context.Context, org, ticket string, args repository.PageArgs, level Level) (repository.Page[*saas.TicketVersion], error) {
	return l.lists.histories.load(ctx, historyKey{org: org, ticket: ticket, listPage: listPageOf(args, level)})
}

// StartTicketHistories starts the histories (one page each) of tickets, given by their
// organization and id, every ticket of a level, as one batch; TicketHistory with the same
// arguments then waits for them.
func (l *Loaders) StartTicketHistories(ctx context.Context, tickets [][2]string, args repository.PageArgs, level Level) {
	l.lists.histories.startAll(ctx, keysOf(tickets, func(t [2]string) historyKey {
		return historyKey{org: t[0], ticket: t[1], listPage: listPageOf(args, level)}
	}))
}

func (l *Loaders) readHistories(ctx context.Context, k historyKey) (repository.Page[*saas.TicketVersion], error) {
	return l.repo.TicketHistory(ctx, k.org, k.ticket, k.page.args())
}
