package loaders

import (
	"context"

	"singletable/repository"
)

// Organizations lists organizations (AP7) and primes them.
func (l *Loaders) Organizations(ctx context.Context, args repository.PageArgs) (repository.Page[*repository.Organization], error) {
	return l.lists.organizations.load(ctx, organizationsKey{pageOf(args)})
}

func (l *Loaders) readOrganizations(ctx context.Context, k organizationsKey) (repository.Page[*repository.Organization], error) {
	p, err := l.repo.ListOrganizations(ctx, k.page.args())
	prime(ctx, l, p.Items...)
	return p, err
}

// UsersOfOrganization pages through an organization's users (AP3) and primes them.
func (l *Loaders) UsersOfOrganization(ctx context.Context, org string, args repository.PageArgs) (repository.Page[*repository.User], error) {
	return l.lists.users.load(ctx, usersKey{org, pageOf(args)})
}

func (l *Loaders) readUsers(ctx context.Context, k usersKey) (repository.Page[*repository.User], error) {
	p, err := l.repo.UsersOfOrganization(ctx, k.org, k.page.args())
	prime(ctx, l, p.Items...)
	return p, err
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
func (l *Loaders) TicketsOfUser(ctx context.Context, org, user string, f repository.TicketFilter, args repository.PageArgs) (repository.Page[*repository.Ticket], error) {
	return l.lists.tickets.load(ctx, ticketsKeyOf(org, user, f, args))
}

// StartTicketsOfUsers starts the ticket lists of users (one page each, filter f) now, without
// waiting: the caller holds every user of a level (a page of users, nodes(ids:)), so their Queries
// start together in one loop instead of one by one as gqlgen reaches each user's resolver.
// TicketsOfUser with the same arguments then waits for them.
func (l *Loaders) StartTicketsOfUsers(ctx context.Context, users []*repository.User, f repository.TicketFilter, args repository.PageArgs) {
	for _, u := range users {
		l.lists.tickets.start(ctx, ticketsKeyOf(u.OrgID, u.ID, f, args))
	}
}

func (l *Loaders) readTickets(ctx context.Context, k ticketsKey) (repository.Page[*repository.Ticket], error) {
	p, err := l.repo.TicketsOfUser(ctx, k.org, k.user, k.filter(), k.page.args())
	prime(ctx, l, p.Items...)
	return p, err
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

func (l *Loaders) readUserWithTickets(ctx context.Context, k withChildrenKey) (userWithTickets, error) {
	u, tickets, err := l.repo.UserWithTickets(ctx, k.parent, k.id, k.first)
	if err != nil {
		return userWithTickets{}, err
	}
	prime(ctx, l, u)
	prime(ctx, l, tickets.Items...)
	return userWithTickets{u, tickets}, nil
}
