package repository

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"singletable/apperr"
)

// ListOrganizations lists organizations by name (AP7): a Query of the Organization partition of
// the entity-type index GSI2, never a Scan.
func (r *Repo) ListOrganizations(ctx context.Context, args PageArgs) (Page[*Organization], error) {
	return ListByType[*Organization](ctx, r, OrganizationsByName, args)
}

func usersQuery(org string) pageQuery {
	return UsersOfOrganization.Query(Join("users", orgPK(org)), orgPK(org), userSKPrefix)
}

// UsersOfOrganization pages through an organization's users (AP3):
// Query PK=ORG#<o> AND begins_with(SK, "USER#").
func (r *Repo) UsersOfOrganization(ctx context.Context, org string, args PageArgs) (Page[*User], error) {
	if err := CheckID("id", org); err != nil {
		return Page[*User]{}, err
	}
	return QueryPage[*User](ctx, r, usersQuery(org), args)
}

// OrganizationWithUsers reads an organization and the first page of its users with ONE Query of
// its item collection, PK=ORG#<o> (AP2): the organization's item sorts before its users. The
// users' cursors continue in UsersOfOrganization.
func (r *Repo) OrganizationWithUsers(ctx context.Context, org string, first int) (*Organization, Page[*User], error) {
	if err := CheckID("id", org); err != nil {
		return nil, Page[*User]{}, err
	}
	items, args, err := r.parentWithPage(ctx, OrganizationWithUsers, first, orgPK(org))
	if err != nil {
		return nil, Page[*User]{}, err
	}
	if len(items) == 0 || StringAttr(items[0], AttrType) != TypeOrganization || items[0][AttrDeleting] != nil {
		return nil, Page[*User]{}, apperr.NotFound("organization")
	}
	o, err := DecodeAs[*Organization](items[0])
	if err != nil {
		return nil, Page[*User]{}, err
	}
	users, err := DecodeAll[*User](items[1:])
	if err != nil {
		return nil, Page[*User]{}, err
	}
	return o, FinishPage(r, usersQuery(org).Scope, KeyAttrs(""), users, items[1:], args), nil
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
func ticketsQuery(org, user string, f TicketFilter) (q pageQuery, ok bool, err error) {
	pk := UserCollectionPK(org, user)
	lo, hi, empty := TicketSKPrefix, TicketSKPrefix+"\xff", false
	if f.CreatedAfter != nil || f.CreatedBefore != nil {
		loID, hiID, ok := IdRange(f.CreatedAfter, f.CreatedBefore)
		lo, hi, empty = ticketGSI1SK(loID), ticketGSI1SK(hiID), !ok
	}
	scope := Join("tickets", pk, Escape(lo), Escape(hi))
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
		q.Values[":status"] = StringValue(string(*f.Status))
		q.Scope = Join(scope, string(*f.Status))
	}
	return q, true, nil
}

// TicketsOfUser pages through a user's tickets, newest first (AP5).
func (r *Repo) TicketsOfUser(ctx context.Context, org, user string, f TicketFilter, args PageArgs) (Page[*Ticket], error) {
	if err := errors.Join(CheckID("id", org), CheckID("id", user)); err != nil {
		return Page[*Ticket]{}, apperr.InvalidInput("id", "not a valid user id")
	}
	q, ok, err := ticketsQuery(org, user, f)
	if err != nil {
		return Page[*Ticket]{}, err
	}
	if !ok {
		return Page[*Ticket]{HasPreviousPage: args.After != ""}, args.Validate()
	}
	return QueryPage[*Ticket](ctx, r, q, args)
}

// UserWithTickets reads a user and the first page of its newest tickets with ONE Query of the
// user's GSI1 collection read backwards: the user item sorts last, so it comes first.
func (r *Repo) UserWithTickets(ctx context.Context, org, user string, first int) (*User, Page[*Ticket], error) {
	if err := errors.Join(CheckID("id", org), CheckID("id", user)); err != nil {
		return nil, Page[*Ticket]{}, apperr.InvalidInput("id", "not a valid user id")
	}
	items, args, err := r.parentWithPage(ctx, UserWithTickets, first, UserCollectionPK(org, user), userGSI1SK(user))
	if err != nil {
		return nil, Page[*Ticket]{}, err
	}
	if len(items) == 0 || StringAttr(items[0], AttrType) != TypeUser {
		return nil, Page[*Ticket]{}, apperr.NotFound("user")
	}
	u, err := DecodeAs[*User](items[0])
	if err != nil {
		return nil, Page[*Ticket]{}, err
	}
	tickets, err := DecodeAll[*Ticket](items[1:])
	if err != nil {
		return nil, Page[*Ticket]{}, err
	}
	q, _, _ := ticketsQuery(org, user, TicketFilter{})
	return u, FinishPage(r, q.Scope, KeyAttrs(Gsi1), tickets, items[1:], args), nil
}

// TicketByID reads a ticket whose organization is not known, from a global ID handed out before
// IDs carried it (AP6 without the tenant): one Query of the ticket's partition,
// PK=TICKET#<t> AND begins_with(SK, "ORG#"). Only a caller who may see every organization may
// ask (the resolvers make sure): anyone else completes such an ID with its own organization and
// looks the ticket up by key, so that a foreign ticket is never read for them.
func (r *Repo) TicketByID(ctx context.Context, ticket string) (*Ticket, error) {
	if err := CheckID("id", ticket); err != nil {
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
	return DecodeAs[*Ticket](items[0])
}

// TicketHistory pages through the versions of ticket id of organization org, newest first
// (AP21): ONE Query of the ticket's partition, PK=TICKET#<t> AND begins_with(SK,
// "VERSION#<o>#"), read backwards. A page costs what its versions weigh, however many versions
// the ticket has. The prefix names the organization, so that a ticket of another organization has
// no history, exactly as a missing one.
func (r *Repo) TicketHistory(ctx context.Context, org, id string, args PageArgs) (Page[*TicketVersion], error) {
	if err := errors.Join(CheckID("id", org), CheckID("id", id)); err != nil {
		return Page[*TicketVersion]{}, apperr.InvalidInput("id", "not a valid ticket id")
	}
	pk, prefix := TicketSKPrefix+id, ticketVersionPrefix(org)
	return QueryPage[*TicketVersion](ctx, r, VersionsOfTicket.Query(Join("history", pk, prefix), pk, prefix), args)
}

// eachUser calls fn for every user of every organization, page by page.
func (r *Repo) EachUser(ctx context.Context, fn func(*User) error) error {
	return EachPage(func(args PageArgs) (Page[*Organization], error) { return r.ListOrganizations(ctx, args) },
		func(o *Organization) error {
			return EachPage(func(args PageArgs) (Page[*User], error) { return r.UsersOfOrganization(ctx, o.ID, args) }, fn)
		})
}
