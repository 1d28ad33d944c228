package loaders

import (
	"context"
	"fmt"
	"time"

	"singletable/repository"
)

// Organization looks an organization up by id (AP1), batched.
func (l *Loaders) Organization(ctx context.Context, id string) (*repository.Organization, error) {
	k, err := repository.OrganizationKey(id)
	if err != nil {
		return nil, err
	}
	return load[*repository.Organization](ctx, l, k, "organization")
}

// User looks a user up by organization and user id (AP4), batched.
func (l *Loaders) User(ctx context.Context, org, id string) (*repository.User, error) {
	k, err := repository.UserKey(org, id)
	if err != nil {
		return nil, err
	}
	return load[*repository.User](ctx, l, k, "user")
}

// Ticket looks a ticket up by id (AP6), batched.
func (l *Loaders) Ticket(ctx context.Context, id string) (*repository.Ticket, error) {
	k, err := repository.TicketKey(id)
	if err != nil {
		return nil, err
	}
	return load[*repository.Ticket](ctx, l, k, "ticket")
}

// Organizations lists organizations (AP7) and primes them.
func (l *Loaders) Organizations(ctx context.Context, args repository.PageArgs) (repository.Page[*repository.Organization], error) {
	return memoize(&l.memo, fmt.Sprintf("orgs|%d|%s", args.First, args.After), func() (repository.Page[*repository.Organization], error) {
		p, err := l.repo.ListOrganizations(ctx, args)
		prime(ctx, l, p.Items...)
		return p, err
	})
}

// UsersOfOrganization pages through an organization's users (AP3) and primes them.
func (l *Loaders) UsersOfOrganization(ctx context.Context, org string, args repository.PageArgs) (repository.Page[*repository.User], error) {
	return memoize(&l.memo, fmt.Sprintf("users|%s|%d|%s", org, args.First, args.After), func() (repository.Page[*repository.User], error) {
		p, err := l.repo.UsersOfOrganization(ctx, org, args)
		prime(ctx, l, p.Items...)
		return p, err
	})
}

type orgWithUsers struct {
	org   *repository.Organization
	users repository.Page[*repository.User]
}

// OrganizationWithUsers reads an organization with the first page of its users in one Query (AP2)
// and primes all of them.
func (l *Loaders) OrganizationWithUsers(ctx context.Context, org string, first int) (*repository.Organization, repository.Page[*repository.User], error) {
	r, err := memoize(&l.memo, fmt.Sprintf("org+users|%s|%d", org, first), func() (orgWithUsers, error) {
		o, users, err := l.repo.OrganizationWithUsers(ctx, org, first)
		if err != nil {
			return orgWithUsers{}, err
		}
		prime(ctx, l, o)
		prime(ctx, l, users.Items...)
		return orgWithUsers{o, users}, nil
	})
	return r.org, r.users, err
}

// TicketsOfUser pages through a user's tickets, newest first (AP5), and primes them.
func (l *Loaders) TicketsOfUser(ctx context.Context, org, user string, f repository.TicketFilter, args repository.PageArgs) (repository.Page[*repository.Ticket], error) {
	key := fmt.Sprintf("tickets|%s|%s|%s|%s|%s|%d|%s", org, user, ptrString(f.Status), timeString(f.CreatedAfter), timeString(f.CreatedBefore), args.First, args.After)
	return memoize(&l.memo, key, func() (repository.Page[*repository.Ticket], error) {
		p, err := l.repo.TicketsOfUser(ctx, org, user, f, args)
		prime(ctx, l, p.Items...)
		return p, err
	})
}

type userWithTickets struct {
	user    *repository.User
	tickets repository.Page[*repository.Ticket]
}

// UserWithTickets reads a user with the first page of its newest tickets in one Query (AP5) and
// primes all of them.
func (l *Loaders) UserWithTickets(ctx context.Context, org, user string, first int) (*repository.User, repository.Page[*repository.Ticket], error) {
	r, err := memoize(&l.memo, fmt.Sprintf("user+tickets|%s|%s|%d", org, user, first), func() (userWithTickets, error) {
		u, tickets, err := l.repo.UserWithTickets(ctx, org, user, first)
		if err != nil {
			return userWithTickets{}, err
		}
		prime(ctx, l, u)
		prime(ctx, l, tickets.Items...)
		return userWithTickets{u, tickets}, nil
	})
	return r.user, r.tickets, err
}

func ptrString[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

func timeString(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
