package loaders

import (
	"context"

	"singletable/repository"
)

// Organizations lists organizations (AP7), primes them, and reads ahead what their level needs
// (a root list is its whole level).
func (l *Loaders) Organizations(ctx context.Context, args repository.PageArgs, level Level) (repository.Page[*repository.Organization], error) {
	return l.lists.organizations.load(ctx, organizationsKey{page: pageOf(args), level: level})
}

func (l *Loaders) readOrganizations(ctx context.Context, k organizationsKey) (repository.Page[*repository.Organization], error) {
	p, err := l.repo.ListOrganizations(ctx, k.page.args())
	prime(ctx, l, p.Items...)
	l.ReadAhead(ctx, LevelObjects{Level: k.level, Objects: entities(p.Items)})
	return p, err
}

// UsersOfOrganization pages through an organization's users (AP3) and primes them.
func (l *Loaders) UsersOfOrganization(ctx context.Context, org string, args repository.PageArgs, level Level) (repository.Page[*repository.User], error) {
	return l.lists.users.load(ctx, usersKey{org: org, page: pageOf(args), level: level})
}

// StartUsersOfOrganizations starts the user lists of orgs, every organization of a level, as one
// batch; UsersOfOrganization with the same arguments then waits for them.
func (l *Loaders) StartUsersOfOrganizations(ctx context.Context, orgs []string, args repository.PageArgs, level Level) {
	keys := make([]usersKey, len(orgs))
	for i, o := range orgs {
		keys[i] = usersKey{org: o, page: pageOf(args), level: level}
	}
	l.lists.users.startAll(ctx, keys)
}

func (l *Loaders) readUsers(ctx context.Context, keys []usersKey, whole bool, answer func(int, repository.Page[*repository.User], error)) ([]repository.Page[*repository.User], []error) {
	return readLevel(ctx, l, keys, whole, "user list query", func(k usersKey) Level { return k.level },
		func(ctx context.Context, k usersKey) (repository.Page[*repository.User], error) {
			p, err := l.repo.UsersOfOrganization(ctx, k.org, k.page.args())
			prime(ctx, l, p.Items...)
			return p, err
		}, answer)
}

type orgWithUsers struct {
	org   *repository.Organization
	users repository.Page[*repository.User]
}

// OrganizationWithUsers reads an organization with the first page of its users in one Query (AP2)
// and primes all of them.
func (l *Loaders) OrganizationWithUsers(ctx context.Context, org string, first int) (*repository.Organization, repository.Page[*repository.User], error) {
	r, err := l.lists.orgWithUsers.load(ctx, withChildrenKey{parent: org, first: first})
	return r.org, r.users, err
}

// StartOrganizationWithUsers starts OrganizationWithUsers without waiting for it.
func (l *Loaders) StartOrganizationWithUsers(ctx context.Context, org string, first int) {
	l.lists.orgWithUsers.startAll(ctx, []withChildrenKey{{parent: org, first: first}})
}

func (l *Loaders) readOrgWithUsers(ctx context.Context, k withChildrenKey) (orgWithUsers, error) {
	o, users, err := l.repo.OrganizationWithUsers(ctx, k.parent, k.first)
	if err != nil {
		return orgWithUsers{}, err
	}
	prime(ctx, l, o)
	prime(ctx, l, users.Items...)
	return orgWithUsers{o, users}, nil
}

// TicketsOfUser pages through a user's tickets, newest first (AP5), and primes them.
func (l *Loaders) TicketsOfUser(ctx context.Context, org, user string, f repository.TicketFilter, args repository.PageArgs, level Level) (repository.Page[*repository.Ticket], error) {
	return l.lists.tickets.load(ctx, ticketsKeyOf(org, user, f, args, level))
}

// StartTicketsOfUsers starts the ticket lists (one page each, filter f) of users, given by their
// organization and id, every user of a level, as one batch; TicketsOfUser with the same
// arguments then waits for them.
func (l *Loaders) StartTicketsOfUsers(ctx context.Context, users [][2]string, f repository.TicketFilter, args repository.PageArgs, level Level) {
	keys := make([]ticketsKey, len(users))
	for i, u := range users {
		keys[i] = ticketsKeyOf(u[0], u[1], f, args, level)
	}
	l.lists.tickets.startAll(ctx, keys)
}

func (l *Loaders) readTickets(ctx context.Context, keys []ticketsKey, whole bool, answer func(int, repository.Page[*repository.Ticket], error)) ([]repository.Page[*repository.Ticket], []error) {
	return readLevel(ctx, l, keys, whole, "ticket list query", func(k ticketsKey) Level { return k.level },
		func(ctx context.Context, k ticketsKey) (repository.Page[*repository.Ticket], error) {
			p, err := l.repo.TicketsOfUser(ctx, k.org, k.user, k.filter(), k.page.args())
			prime(ctx, l, p.Items...)
			return p, err
		}, answer)
}

type userWithTickets struct {
	user    *repository.User
	tickets repository.Page[*repository.Ticket]
}

// UserWithTickets reads a user with the first page of its newest tickets in one Query (AP5) and
// primes all of them.
func (l *Loaders) UserWithTickets(ctx context.Context, org, user string, first int) (*repository.User, repository.Page[*repository.Ticket], error) {
	r, err := l.lists.userWithTickets.load(ctx, withChildrenKey{parent: org, id: user, first: first})
	return r.user, r.tickets, err
}

// StartUserWithTickets starts UserWithTickets without waiting for it.
func (l *Loaders) StartUserWithTickets(ctx context.Context, org, user string, first int) {
	l.lists.userWithTickets.startAll(ctx, []withChildrenKey{{parent: org, id: user, first: first}})
}

func (l *Loaders) readUserWithTickets(ctx context.Context, k withChildrenKey) (userWithTickets, error) {
	u, tickets, err := l.repo.UserWithTickets(ctx, k.parent, k.id, k.first)
	if err != nil {
		return userWithTickets{}, err
	}
	prime(ctx, l, u)
	prime(ctx, l, tickets.Items...)
	return userWithTickets{u, tickets}, nil
}

// TicketByID reads a ticket by its id alone (AP6 without the tenant: one Query of its partition,
// once per request however many fields name it) and primes it, so that the lookup by key that
// follows costs nothing. It serves the legacy ticket IDs of a caller who sees every organization
// (graph/model's completeTicket).
func (l *Loaders) TicketByID(ctx context.Context, id string) (*repository.Ticket, error) {
	return l.lists.ticketByID.load(ctx, id)
}

func (l *Loaders) readTicketByID(ctx context.Context, id string) (*repository.Ticket, error) {
	t, err := l.repo.TicketByID(ctx, id)
	if err != nil {
		return nil, err
	}
	prime(ctx, l, t)
	return t, nil
}

// TicketHistory pages through a ticket's versions, newest first (AP21).
func (l *Loaders) TicketHistory(ctx context.Context, org, ticket string, args repository.PageArgs, level Level) (repository.Page[*repository.TicketVersion], error) {
	return l.lists.histories.load(ctx, historyKey{org: org, ticket: ticket, page: pageOf(args), level: level})
}

// StartTicketHistories starts the histories (one page each) of tickets, given by their
// organization and id, every ticket of a level, as one batch; TicketHistory with the same
// arguments then waits for them.
func (l *Loaders) StartTicketHistories(ctx context.Context, tickets [][2]string, args repository.PageArgs, level Level) {
	keys := make([]historyKey, len(tickets))
	for i, t := range tickets {
		keys[i] = historyKey{org: t[0], ticket: t[1], page: pageOf(args), level: level}
	}
	l.lists.histories.startAll(ctx, keys)
}

func (l *Loaders) readHistories(ctx context.Context, keys []historyKey, whole bool, answer func(int, repository.Page[*repository.TicketVersion], error)) ([]repository.Page[*repository.TicketVersion], []error) {
	return readLevel(ctx, l, keys, whole, "ticket history query", func(k historyKey) Level { return k.level },
		func(ctx context.Context, k historyKey) (repository.Page[*repository.TicketVersion], error) {
			return l.repo.TicketHistory(ctx, k.org, k.ticket, k.page.args())
		}, answer)
}
