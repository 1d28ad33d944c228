package saas

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
)

// The SaaS domain's counters (see counters.go): an organization's users, a user's tickets by
// status.

// ticketCountAttr is the attribute that counts a user's tickets with status st (openTickets,
// pendingTickets, closedTickets).
func ticketCountAttr(st TicketStatus) string { return strings.ToLower(string(st)) + "Tickets" }

// UserTotal is the number of the organization's users.
func (o *Organization) UserTotal() repository.Count {
	return repository.CountIf(o.Counted, o.UserCount)
}

// TicketTotal is the number of the user's tickets that filter f keeps: all of them, or those
// with its status; unknown with a time range.
func (u *User) TicketTotal(f TicketFilter) repository.Count {
	ranged := f.CreatedAfter != nil || f.CreatedBefore != nil
	return repository.FilteredTotal(u.Counted, ranged, f.Status, u.ticketCount, u.OpenTickets+u.PendingTickets+u.ClosedTickets)
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
var _ = repository.Counted(repository.Tally{
	Parent: TypeOrganization, Attrs: []string{attrUserCount},
	Project: []string{repository.AttrType, "orgId"},
	Of: func(it map[string]types.AttributeValue) (repository.Key, string, bool) {
		return OrgKey(repository.StringAttr(it, "orgId")), attrUserCount, repository.StringAttr(it, repository.AttrType) == TypeUser
	},
	Each: func(ctx context.Context, repo *repository.Repo, fn func(repository.Entity) error) error {
		r := &SaaS{Repo: repo}
		return repository.EachPage(func(a repository.PageArgs) (repository.Page[*Organization], error) {
			return r.ListOrganizations(ctx, a)
		}, repository.EntityFn[*Organization](fn))
	},
	Collection: func(p repository.Entity) *dynamodb.QueryInput {
		return UsersOfOrganization.Input("", orgPK(p.(*Organization).ID), userSKPrefix)
	},
})

// Counted: a user's tickets by status, from GSI1.
var _ = repository.Counted(repository.Tally{
	Parent: TypeUser, Attrs: ticketCountAttrs(),
	Project: []string{repository.AttrType, "orgId", "reporterId", "status"},
	Of: func(it map[string]types.AttributeValue) (repository.Key, string, bool) {
		return UserKeyOf(repository.StringAttr(it, "orgId"), repository.StringAttr(it, "reporterId")),
			ticketCountAttr(TicketStatus(repository.StringAttr(it, "status"))), repository.StringAttr(it, repository.AttrType) == TypeTicket
	},
	Each: func(ctx context.Context, repo *repository.Repo, fn func(repository.Entity) error) error {
		r := &SaaS{Repo: repo}
		return r.EachUser(ctx, repository.EntityFn[*User](fn))
	},
	Collection: func(p repository.Entity) *dynamodb.QueryInput {
		u := p.(*User)
		return TicketsOfUser.Input("", UserCollectionPK(u.OrgID, u.ID), TicketSKPrefix)
	},
	FromIndex: true,
})
