package repository

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The SaaS domain's counters (see counters.go): an organization's users, a user's tickets by
// status.

// ticketCountAttr is the attribute that counts a user's tickets with status st (openTickets,
// pendingTickets, closedTickets).
func ticketCountAttr(st TicketStatus) string { return strings.ToLower(string(st)) + "Tickets" }

// UserTotal is the number of the organization's users.
func (o *Organization) UserTotal() Count { return CountIf(o.Counted, o.UserCount) }

// TicketTotal is the number of the user's tickets that filter f keeps: all of them, or those
// with its status; unknown with a time range.
func (u *User) TicketTotal(f TicketFilter) Count {
	ranged := f.CreatedAfter != nil || f.CreatedBefore != nil
	return FilteredTotal(u.Counted, ranged, f.Status, u.ticketCount, u.OpenTickets+u.PendingTickets+u.ClosedTickets)
}

func (u *User) ticketCount(st TicketStatus) int {
	switch st {
	case TicketOpen:
		return u.OpenTickets
	case TicketPending:
		return u.PendingTickets
	case TicketClosed:
		return u.ClosedTickets
	}
	return 0
}

func ticketCountAttrs() []string {
	out := make([]string, len(ticketStatuses))
	for i, st := range ticketStatuses {
		out[i] = ticketCountAttr(st)
	}
	return out
}

// attrUserCount counts an organization's users.
const attrUserCount = "userCount"

// ticketStatuses are every ticket status, in the order counters are reported.
var ticketStatuses = []TicketStatus{TicketOpen, TicketPending, TicketClosed}

// Counted: an organization's users.
var _ = Counted(Tally{
	Parent: TypeOrganization, Attrs: []string{attrUserCount},
	Project: []string{AttrType, "orgId"},
	Of: func(it map[string]types.AttributeValue) (Key, string, bool) {
		return OrgKey(StringAttr(it, "orgId")), attrUserCount, StringAttr(it, AttrType) == TypeUser
	},
	Each: func(ctx context.Context, r *Repo, fn func(Entity) error) error {
		return EachPage(func(a PageArgs) (Page[*Organization], error) { return r.ListOrganizations(ctx, a) }, EntityFn[*Organization](fn))
	},
	Collection: func(p Entity) *dynamodb.QueryInput {
		return UsersOfOrganization.Input("", orgPK(p.(*Organization).ID), userSKPrefix)
	},
})

// Counted: a user's tickets by status, from GSI1.
var _ = Counted(Tally{
	Parent: TypeUser, Attrs: ticketCountAttrs(),
	Project: []string{AttrType, "orgId", "reporterId", "status"},
	Of: func(it map[string]types.AttributeValue) (Key, string, bool) {
		return UserKeyOf(StringAttr(it, "orgId"), StringAttr(it, "reporterId")),
			ticketCountAttr(TicketStatus(StringAttr(it, "status"))), StringAttr(it, AttrType) == TypeTicket
	},
	Each: func(ctx context.Context, r *Repo, fn func(Entity) error) error {
		return r.EachUser(ctx, EntityFn[*User](fn))
	},
	Collection: func(p Entity) *dynamodb.QueryInput {
		u := p.(*User)
		return TicketsOfUser.Input("", UserCollectionPK(u.OrgID, u.ID), TicketSKPrefix)
	},
	FromIndex: true,
})
