package saas

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// The SaaS domain, Organization → Users → Tickets. The entity definitions below say how each item
// is keyed (the key table in docs/data-model.md is generated from them).
//
// Users share the organization's item collection, so one Query reads an organization with its
// users (AP2). Tickets live in collections of their own on the table, and join their reporter's
// collection on GSI1, where the user item sorts after every ticket. A UserEmail guard item, in a
// partition of its own, makes an email unique inside its organization.

// Organization is a customer account of the SaaS product.
type Organization struct {
	ID        string    `dynamodbav:"id"`
	Name      string    `dynamodbav:"name"`
	CreatedAt time.Time `dynamodbav:"createdAt"`
	// UserCount counts the organization's users; Counted says it is exact (counters.go).
	UserCount int  `dynamodbav:"userCount"`
	Counted   bool `dynamodbav:"counted"`
}

// Key implements Entity.
func (o *Organization) Key() repository.Key { return organizationEntity.Key(o) }

// organizationEntity is the definition of the Organization item: the root of its organization's
// collection, listed by name on GSI2 (AP7).
var organizationEntity = repository.Define(repository.EntityDef[Organization, *Organization]{
	Name: TypeOrganization,
	Key:  func(o *Organization) repository.Key { return OrgKey(o.ID) },
	Indexes: func(o *Organization, _ int) []repository.IndexKey {
		return []repository.IndexKey{{Index: repository.GSI2, PK: repository.TypePK(TypeOrganization), SK: repository.NameSortKey(o.Name, o.ID)}}
	},
	Examples: func() []*Organization { return []*Organization{{ID: "<orgId>", Name: "<name>"}} },
})

// User belongs to one organization.
type User struct {
	ID        string    `dynamodbav:"id"`
	OrgID     string    `dynamodbav:"orgId"`
	Name      string    `dynamodbav:"name"`
	Email     string    `dynamodbav:"email"`
	CreatedAt time.Time `dynamodbav:"createdAt"`
	// The counters of the user's tickets by status; Counted says they are exact (counters.go).
	OpenTickets    int  `dynamodbav:"openTickets"`
	PendingTickets int  `dynamodbav:"pendingTickets"`
	ClosedTickets  int  `dynamodbav:"closedTickets"`
	Counted        bool `dynamodbav:"counted"`
}

// Key implements Entity.
func (u *User) Key() repository.Key { return UserEntity.Key(u) }

// UserEntity is the definition of the User item: in its organization's collection (AP2, AP3), and the
// last item of its own ticket collection on GSI1 (AP5).
var UserEntity = repository.Define(repository.EntityDef[User, *User]{
	Name: TypeUser,
	Key:  func(u *User) repository.Key { return UserKeyOf(u.OrgID, u.ID) },
	Indexes: func(u *User, _ int) []repository.IndexKey {
		return []repository.IndexKey{{Index: repository.GSI1, PK: UserCollectionPK(u.OrgID, u.ID), SK: userGSI1SK(u.ID)}}
	},
	Examples: func() []*User { return []*User{{ID: "<userId>", OrgID: "<orgId>"}} },
})

// TicketStatus is the state of a ticket.
type TicketStatus string

// Ticket states.
const (
	TicketOpen    TicketStatus = "OPEN"
	TicketPending TicketStatus = "PENDING"
	TicketClosed  TicketStatus = "CLOSED"
)

func (s TicketStatus) valid() bool {
	return s == TicketOpen || s == TicketPending || s == TicketClosed
}

// Ticket is reported by a user. Its id is time-sortable, so its sort key orders tickets by
// creation time. Its item is the ticket's current state; every state it has had is a TicketVersion
// item of its partition, and Version is the number of the latest, the one the item shows.
type Ticket struct {
	ID         string       `dynamodbav:"id"`
	OrgID      string       `dynamodbav:"orgId"`
	ReporterID string       `dynamodbav:"reporterId"`
	Title      string       `dynamodbav:"title"`
	Body       string       `dynamodbav:"body"`
	Status     TicketStatus `dynamodbav:"status"`
	CreatedAt  time.Time    `dynamodbav:"createdAt"`
	UpdatedAt  time.Time    `dynamodbav:"updatedAt"`
	// Version is 1 when the ticket is created and grows by one with every change. A ticket
	// written before versions existed has none (0): see CurrentVersion.
	Version int `dynamodbav:"version"`
}

// CurrentVersion is the ticket's version: a ticket written before versions existed is at its
// first, version 1, as it was created.
func (t *Ticket) CurrentVersion() int { return max(t.Version, 1) }

// Key implements Entity.
func (t *Ticket) Key() repository.Key { return TicketEntity.Key(t) }

// TicketEntity is the definition of the Ticket item: a collection of its own whose sort key names
// the ticket's organization (so that a lookup is always made with the tenant, AP6), joined to its
// reporter's collection on GSI1, newest first by its time-sortable id (AP5).
var TicketEntity = repository.Define(repository.EntityDef[Ticket, *Ticket]{
	Name: TypeTicket,
	Key:  func(t *Ticket) repository.Key { return TicketKeyOf(t.OrgID, t.ID) },
	Indexes: func(t *Ticket, _ int) []repository.IndexKey {
		return []repository.IndexKey{{Index: repository.GSI1, PK: UserCollectionPK(t.OrgID, t.ReporterID), SK: ticketGSI1SK(t.ID)}}
	},
	Examples: func() []*Ticket { return []*Ticket{{ID: "<ticketId>", OrgID: "<orgId>", ReporterID: "<userId>"}} },
})

// TicketVersion is one state a ticket has had: written, never changed, in the same transaction
// as the change of the ticket's item that made it. Version 1 is the ticket as it was created.
type TicketVersion struct {
	TicketID string       `dynamodbav:"ticketId"`
	OrgID    string       `dynamodbav:"orgId"`
	Version  int          `dynamodbav:"version"`
	Title    string       `dynamodbav:"title"`
	Body     string       `dynamodbav:"body"`
	Status   TicketStatus `dynamodbav:"status"`
	EditedAt time.Time    `dynamodbav:"editedAt"`
}

// Key implements Entity.
func (v *TicketVersion) Key() repository.Key { return TicketVersionEntity.Key(v) }

// TicketVersionEntity is the definition of a ticket's version item: in the ticket's partition,
// sorted by its zero-padded number under the organization's version prefix, so that a ticket's
// history newest first is one Query read backwards (AP21). It is on no index: a version is only
// ever read with its ticket's other versions.
var TicketVersionEntity = repository.Define(repository.EntityDef[TicketVersion, *TicketVersion]{
	Name: TypeTicketVersion,
	Key:  func(v *TicketVersion) repository.Key { return TicketVersionKey(v.OrgID, v.TicketID, v.Version) },
	Examples: func() []*TicketVersion {
		return []*TicketVersion{{TicketID: "<ticketId>", OrgID: "<orgId>", Version: 1}}
	},
	// Version numbers are written with ten digits, so that they sort in order.
	Placeholders: map[string]string{"#0000000001": "#<nnnnnnnnnn>"},
})

// VersionOf is the version item of ticket t's current state, edited at.
func VersionOf(t *Ticket, at time.Time) *TicketVersion {
	return &TicketVersion{TicketID: t.ID, OrgID: t.OrgID, Version: t.CurrentVersion(), Title: t.Title, Body: t.Body, Status: t.Status, EditedAt: at}
}

// OrganizationKey, UserKey and TicketKey are the keys of entities looked up by id (AP1, AP4, AP6).
// They validate the ids, which come from clients.
func OrganizationKey(org string) (repository.Key, error) {
	if err := repository.CheckID("id", org); err != nil {
		return repository.Key{}, err
	}
	return OrgKey(org), nil
}

// UserKey is the key of a user (AP4).
func UserKey(org, user string) (repository.Key, error) {
	if err := errors.Join(repository.CheckID("id", org), repository.CheckID("id", user)); err != nil {
		return repository.Key{}, apperr.InvalidInput("id", "not a valid user id")
	}
	return UserKeyOf(org, user), nil
}

// TicketKey is the key of a ticket of organization org (AP6).
func TicketKey(org, ticket string) (repository.Key, error) {
	if err := errors.Join(repository.CheckID("id", org), repository.CheckID("id", ticket)); err != nil {
		return repository.Key{}, apperr.InvalidInput("id", "not a valid ticket id")
	}
	return TicketKeyOf(org, ticket), nil
}

func EmailGuardItem(u *User) map[string]types.AttributeValue {
	k := emailGuardKey(u.OrgID, u.Email)
	item := k.Attributes()
	item[repository.AttrType] = repository.StringValue(TypeUserEmail)
	item["userId"] = repository.StringValue(u.ID)
	return item
}

var _ = repository.DeclareItem(func() map[string]types.AttributeValue {
	return EmailGuardItem(&User{ID: "<userId>", OrgID: "<orgId>", Email: "<email>"})
}, nil)

// --- Keys: how the SaaS domain's items are spelled in the table ---

// Item types of the SaaS domain, stored in the `type` attribute.
const (
	TypeOrganization = "Organization"
	TypeUser         = "User"
	TypeUserEmail    = "UserEmail"
	TypeTicket       = "Ticket"
	// TypeTicketVersion is one immutable version of a ticket, in the ticket's own partition.
	TypeTicketVersion = "TicketVersion"
)

func orgPK(org string) string { return repository.Join("ORG", org) }

// OrgKey: the organization's own item sorts first in its collection (METADATA < USER).
func OrgKey(org string) repository.Key {
	return repository.Key{PK: orgPK(org), SK: repository.Join("METADATA", org)}
}

const userSKPrefix = "USER#"

func UserKeyOf(org, user string) repository.Key {
	return repository.Key{PK: orgPK(org), SK: userSKPrefix + user}
}

// UserCollectionPK is a user's item collection on GSI1: the user item and its tickets.
func UserCollectionPK(org, user string) string { return repository.Join("ORG", org, "USER", user) }

// The user item's GSI1 sort key sorts after every ticket's ("USER#" > "TICKET#"), so a
// newest-first Query (ScanIndexForward=false) reads the user first and then its newest tickets.
func userGSI1SK(user string) string { return userSKPrefix + user }

const TicketSKPrefix = "TICKET#"

// TicketKeyOf: a ticket's partition is its own, and the sort key of its item names the
// organization it belongs to. A lookup is therefore only ever made with the tenant: a key spelled
// with another organization finds nothing, exactly as for a ticket that does not exist, at the
// same cost (no read of a foreign ticket, no size of one to report).
func TicketKeyOf(org, ticket string) repository.Key {
	return repository.Key{PK: TicketSKPrefix + ticket, SK: ticketOrgSKPrefix + org}
}

// ticketOrgSKPrefix starts the sort key of a ticket's item (ORG#<org>); begins_with on it finds
// the item of a ticket whose organization is not known (an ID handed out before IDs carried it).
const ticketOrgSKPrefix = "ORG#"

func ticketGSI1SK(ticket string) string { return TicketSKPrefix + ticket }

// ticketVersionPrefix starts the sort keys of a ticket's version items: VERSION#<org>#. The
// versions live in the ticket's own partition, next to its current item (which plays
// the part of a latest-version copy: it always equals the newest version item), so a ticket's history is one Query,
// begins_with(SK, VERSION#<org>#), read backwards for newest first (AP21). The prefix names the
// organization for the reason the current item's sort key does: a Query spelled with another
// organization finds nothing, exactly as for a ticket that does not exist.
func ticketVersionPrefix(org string) string {
	return "VERSION" + repository.Delim + org + repository.Delim
}

// ticketVersionDigits is the width of a version number in its sort key: zero-padded, so that the
// keys sort in version order (up to maxTicketVersion).
const ticketVersionDigits = 10

// TicketVersionKey is the key of version v of a ticket of organization org.
func TicketVersionKey(org, ticket string, v int) repository.Key {
	digits := strconv.Itoa(v)
	pad := strings.Repeat("0", max(0, ticketVersionDigits-len(digits)))
	return repository.Key{PK: TicketSKPrefix + ticket, SK: ticketVersionPrefix(org) + pad + digits}
}

// emailGuardKey is the item that makes an email unique inside one organization. It lives in its
// own partition, not in the organization's collection, so that AP2's Query of the collection
// reads only the organization and its users.
func emailGuardKey(org, email string) repository.Key {
	pk := repository.Join("USEREMAIL", org, repository.FoldKey(email))
	return repository.Key{PK: pk, SK: "USEREMAIL"}
}

// A user's and a ticket's item live only as long as their organization (BatchGet reads it with
// them): both keys spell it.
var _ = repository.DeclareParent(func(k repository.Key) (repository.Key, bool) {
	orgPrefix := orgPK("")
	switch {
	case strings.HasPrefix(k.PK, orgPrefix) && strings.HasPrefix(k.SK, userSKPrefix):
		return OrgKey(strings.TrimPrefix(k.PK, orgPrefix)), true
	case strings.HasPrefix(k.PK, TicketSKPrefix) && strings.HasPrefix(k.SK, ticketOrgSKPrefix):
		return OrgKey(strings.TrimPrefix(k.SK, ticketOrgSKPrefix)), true
	}
	return repository.Key{}, false
})

// EncodeTicket is the item of t exactly as the repository writes it: for a writer that puts
// tickets with SDK calls of its own (another service's bulk import, as the tests and the
// benchmark play it).
func EncodeTicket(t *Ticket) (map[string]types.AttributeValue, error) { return TicketEntity.Encode(t) }
