package saas

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"singletable/apperr"
	"singletable/repository"
)

// ListOrganizations lists organizations by name (AP7): a Query of the Organization partition of
// the entity-type index GSI2, never a Scan.
func (r *SaaS) ListOrganizations(ctx context.Context, args repository.PageArgs) (repository.Page[*Organization], error) {
	return repository.ListByType[*Organization](ctx, r.Repo, OrganizationsByName, args)
}

func usersQuery(org string) repository.PageQuery {
	return UsersOfOrganization.Query(repository.Join("users", orgPK(org)), orgPK(org), userSKPrefix)
}

// UsersOfOrganization pages through an organization's users (AP3):
// Query PK=ORG#<o> AND begins_with(SK, "USER#").
func (r *SaaS) UsersOfOrganization(ctx context.Context, org string, args repository.PageArgs) (repository.Page[*User], error) {
	if err := repository.CheckID("id", org); err != nil {
		return repository.Page[*User]{}, err
	}
	return repository.QueryPage[*User](ctx, r.Repo, usersQuery(org), args)
}

// OrganizationWithUsers reads an organization and the first page of its users with ONE Query of
// its item collection, PK=ORG#<o> (AP2): the organization's item sorts before its users. The
// users' cursors continue in UsersOfOrganization.
func (r *SaaS) OrganizationWithUsers(ctx context.Context, org string, first int) (*Organization, repository.Page[*User], error) {
	if err := repository.CheckID("id", org); err != nil {
		return nil, repository.Page[*User]{}, err
	}
	items, args, err := r.ParentWithPage(ctx, OrganizationWithUsers, first, orgPK(org))
	if err != nil {
		return nil, repository.Page[*User]{}, err
	}
	if len(items) == 0 || repository.StringAttr(items[0], repository.AttrType) != TypeOrganization || items[0][repository.AttrDeleting] != nil {
		return nil, repository.Page[*User]{}, apperr.NotFound("organization")
	}
	o, err := repository.DecodeAs[*Organization](items[0])
	if err != nil {
		return nil, repository.Page[*User]{}, err
	}
	users, err := repository.DecodeAll[*User](items[1:])
	if err != nil {
		return nil, repository.Page[*User]{}, err
	}
	return o, repository.FinishPage(r.Repo, usersQuery(org).Scope, repository.KeyAttrs(""), users, items[1:], args), nil
}

// TicketFilter narrows a user's tickets: by status (a filter on the read items) and by creation
// time (a range of the time-sortable sort key). Both bounds are exclusive.
type TicketFilter struct {
	Status        *TicketStatus
	CreatedAfter  *time.Time
	CreatedBefore *time.Time
}

// ticketsQuery is AP5: GSI1 PK=ORG#<o>#USER#<u>, sort key TICKET#<id> within the time range,
// newest first (ScanIndexForward=false). ok is false when the range is empty.
func ticketsQuery(org, user string, f TicketFilter) (q repository.PageQuery, ok bool, err error) {
	pk := UserCollectionPK(org, user)
	lo, hi, empty := TicketSKPrefix, TicketSKPrefix+"\xff", false
	if f.CreatedAfter != nil || f.CreatedBefore != nil {
		loID, hiID, ok := repository.IDRange(f.CreatedAfter, f.CreatedBefore)
		lo, hi, empty = ticketGSI1SK(loID), ticketGSI1SK(hiID), !ok
	}
	scope := repository.Join("tickets", pk, repository.Escape(lo), repository.Escape(hi))
	if f.CreatedAfter == nil && f.CreatedBefore == nil {
		q = TicketsOfUser.Query(scope, pk, TicketSKPrefix)
	} else {
		if empty {
			return q, false, nil
		}
		q = TicketsOfUserCreated.Query(scope, pk, lo, hi)
	}
	if f.Status != nil {
		if !f.Status.valid() {
			return q, false, apperr.InvalidInput("status", "unknown ticket status")
		}
		q.Filter = "#status = :status"
		q.Names = map[string]string{"#status": "status"}
		q.Values[":status"] = repository.StringValue(string(*f.Status))
		q.Scope = repository.Join(scope, string(*f.Status))
	}
	return q, true, nil
}

// TicketsOfUser pages through a user's tickets, newest first (AP5).
func (r *SaaS) TicketsOfUser(ctx context.Context, org, user string, f TicketFilter, args repository.PageArgs) (repository.Page[*Ticket], error) {
	if err := errors.Join(repository.CheckID("id", org), repository.CheckID("id", user)); err != nil {
		return repository.Page[*Ticket]{}, apperr.InvalidInput("id", "not a valid user id")
	}
	q, ok, err := ticketsQuery(org, user, f)
	if err != nil {
		return repository.Page[*Ticket]{}, err
	}
	if !ok {
		return repository.Page[*Ticket]{HasPreviousPage: args.After != ""}, args.Validate()
	}
	return repository.QueryPage[*Ticket](ctx, r.Repo, q, args)
}

// UserWithTickets reads a user and the first page of its newest tickets with ONE Query of the
// user's GSI1 collection read backwards: the user item sorts last, so it comes first.
func (r *SaaS) UserWithTickets(ctx context.Context, org, user string, first int) (*User, repository.Page[*Ticket], error) {
	if err := errors.Join(repository.CheckID("id", org), repository.CheckID("id", user)); err != nil {
		return nil, repository.Page[*Ticket]{}, apperr.InvalidInput("id", "not a valid user id")
	}
	items, args, err := r.ParentWithPage(ctx, UserWithTickets, first, UserCollectionPK(org, user), userGSI1SK(user))
	if err != nil {
		return nil, repository.Page[*Ticket]{}, err
	}
	if len(items) == 0 || repository.StringAttr(items[0], repository.AttrType) != TypeUser {
		return nil, repository.Page[*Ticket]{}, apperr.NotFound("user")
	}
	u, err := repository.DecodeAs[*User](items[0])
	if err != nil {
		return nil, repository.Page[*Ticket]{}, err
	}
	tickets, err := repository.DecodeAll[*Ticket](items[1:])
	if err != nil {
		return nil, repository.Page[*Ticket]{}, err
	}
	q, _, _ := ticketsQuery(org, user, TicketFilter{})
	return u, repository.FinishPage(r.Repo, q.Scope, repository.KeyAttrs(repository.GSI1), tickets, items[1:], args), nil
}

// TicketByID reads a ticket whose organization is not known, from a global ID handed out before
// IDs carried it (AP6 without the tenant): one Query of the ticket's partition,
// PK=TICKET#<t> AND begins_with(SK, "ORG#"). Only a caller who may see every organization may
// ask (the resolvers make sure): anyone else completes such an ID with its own organization and
// looks the ticket up by key, so that a foreign ticket is never read for them.
func (r *SaaS) TicketByID(ctx context.Context, ticket string) (*Ticket, error) {
	if err := repository.CheckID("id", ticket); err != nil {
		return nil, err
	}
	in := TicketByID.Input(r.Table(), TicketSKPrefix+ticket, ticketOrgSKPrefix)
	in.Limit = aws.Int32(1)
	items, err := r.QueryItems(ctx, in, 1)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, apperr.NotFound("ticket")
	}
	return repository.DecodeAs[*Ticket](items[0])
}

// TicketHistory pages through the versions of ticket id of organization org, newest first
// (AP21): ONE Query of the ticket's partition, PK=TICKET#<t> AND begins_with(SK,
// "VERSION#<o>#"), read backwards. A page costs what its versions weigh, however many versions
// the ticket has. The prefix names the organization, so that a ticket of another organization has
// no history, exactly as a missing one.
func (r *SaaS) TicketHistory(ctx context.Context, org, id string, args repository.PageArgs) (repository.Page[*TicketVersion], error) {
	if err := errors.Join(repository.CheckID("id", org), repository.CheckID("id", id)); err != nil {
		return repository.Page[*TicketVersion]{}, apperr.InvalidInput("id", "not a valid ticket id")
	}
	pk, prefix := TicketSKPrefix+id, ticketVersionPrefix(org)
	return repository.QueryPage[*TicketVersion](ctx, r.Repo, VersionsOfTicket.Query(repository.Join("history", pk, prefix), pk, prefix), args)
}

// EachUser calls fn for every user of every organization, page by page.
func (r *SaaS) EachUser(ctx context.Context, fn func(*User) error) error {
	return repository.EachPage(func(args repository.PageArgs) (repository.Page[*Organization], error) {
		return r.ListOrganizations(ctx, args)
	},
		func(o *Organization) error {
			return repository.EachPage(func(args repository.PageArgs) (repository.Page[*User], error) {
				return r.UsersOfOrganization(ctx, o.ID, args)
			}, fn)
		})
}
