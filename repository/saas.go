package repository

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// The SaaS domain, Organization → Users → Tickets, modelled as in seed 000 (strategies 3 and 4):
//
//	Organization  PK=ORG#<o>           SK=METADATA#<o>   GSI2: TYPE#Organization / <name>#<o>
//	User          PK=ORG#<o>           SK=USER#<u>       GSI1: ORG#<o>#USER#<u> / USER#<u>
//	Ticket        PK=TICKET#<t>        SK=TICKET#<t>     GSI1: ORG#<o>#USER#<u> / TICKET#<t>
//	UserEmail     PK=USEREMAIL#<o>#<email> SK=USEREMAIL  (guards a unique email per organization)
//
// Users share the organization's item collection, so one Query reads an organization with its
// users (AP2). Tickets live in collections of their own on the table, and join their reporter's
// collection on GSI1, where the user item sorts after every ticket.

// Organization is a customer account of the SaaS product.
type Organization struct {
	ID        string    `dynamodbav:"id"`
	Name      string    `dynamodbav:"name"`
	CreatedAt time.Time `dynamodbav:"createdAt"`
}

// Key implements Entity.
func (o *Organization) Key() Key { return organizationEntity.key(o) }

// organizationEntity is the definition of the Organization item: the root of its organization's
// collection, listed by name on GSI2 (AP7).
var organizationEntity = entity[Organization, *Organization]{
	name: typeOrganization,
	key:  func(o *Organization) Key { return orgKey(o.ID) },
	indexes: func(o *Organization, _ int) []indexKey {
		return []indexKey{{gsi2, typePK(typeOrganization), nameSortKey(o.Name, o.ID)}}
	},
	examples: func() []*Organization { return []*Organization{{ID: "<orgId>", Name: "<name>"}} },
}

// User belongs to one organization.
type User struct {
	ID        string    `dynamodbav:"id"`
	OrgID     string    `dynamodbav:"orgId"`
	Name      string    `dynamodbav:"name"`
	Email     string    `dynamodbav:"email"`
	CreatedAt time.Time `dynamodbav:"createdAt"`
}

// Key implements Entity.
func (u *User) Key() Key { return userEntity.key(u) }

// userEntity is the definition of the User item: in its organization's collection (AP2, AP3), and the
// last item of its own ticket collection on GSI1 (AP5).
var userEntity = entity[User, *User]{
	name: typeUser,
	key:  func(u *User) Key { return userKey(u.OrgID, u.ID) },
	indexes: func(u *User, _ int) []indexKey {
		return []indexKey{{gsi1, userCollectionPK(u.OrgID, u.ID), userGSI1SK(u.ID)}}
	},
	examples: func() []*User { return []*User{{ID: "<userId>", OrgID: "<orgId>"}} },
}

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
// creation time.
type Ticket struct {
	ID         string       `dynamodbav:"id"`
	OrgID      string       `dynamodbav:"orgId"`
	ReporterID string       `dynamodbav:"reporterId"`
	Title      string       `dynamodbav:"title"`
	Body       string       `dynamodbav:"body"`
	Status     TicketStatus `dynamodbav:"status"`
	CreatedAt  time.Time    `dynamodbav:"createdAt"`
	UpdatedAt  time.Time    `dynamodbav:"updatedAt"`
}

// Key implements Entity.
func (t *Ticket) Key() Key { return ticketEntity.key(t) }

// ticketEntity is the definition of the Ticket item: a collection of its own, joined to its
// reporter's collection on GSI1, newest first by its time-sortable id (AP5).
var ticketEntity = entity[Ticket, *Ticket]{
	name: typeTicket,
	key:  func(t *Ticket) Key { return ticketKey(t.ID) },
	indexes: func(t *Ticket, _ int) []indexKey {
		return []indexKey{{gsi1, userCollectionPK(t.OrgID, t.ReporterID), ticketGSI1SK(t.ID)}}
	},
	examples: func() []*Ticket { return []*Ticket{{ID: "<ticketId>", OrgID: "<orgId>", ReporterID: "<userId>"}} },
}

// OrganizationKey, UserKey and TicketKey are the keys of entities looked up by id (AP1, AP4, AP6).
// They validate the ids, which come from clients.
func OrganizationKey(org string) (Key, error) {
	if err := checkID("id", org); err != nil {
		return Key{}, err
	}
	return orgKey(org), nil
}

// UserKey is the key of a user (AP4).
func UserKey(org, user string) (Key, error) {
	if err := errors.Join(checkID("id", org), checkID("id", user)); err != nil {
		return Key{}, apperr.InvalidInput("id", "not a valid user id")
	}
	return userKey(org, user), nil
}

// TicketKey is the key of a ticket (AP6).
func TicketKey(ticket string) (Key, error) {
	if err := checkID("id", ticket); err != nil {
		return Key{}, err
	}
	return ticketKey(ticket), nil
}

func emailGuardItem(u *User) map[string]types.AttributeValue {
	k := emailGuardKey(u.OrgID, u.Email)
	item := k.attributes()
	item[attrType] = s(typeUserEmail)
	item["userId"] = s(u.ID)
	return item
}

// newEntityID returns a fresh id and the creation time it encodes (millisecond precision, UTC).
func (r *Repo) newEntityID() (string, time.Time, error) {
	id, err := newID(r.now())
	if err != nil {
		return "", time.Time{}, err
	}
	return id, idTime(id), nil
}

// CreateOrganization stores a new organization.
func (r *Repo) CreateOrganization(ctx context.Context, name string) (*Organization, error) {
	name, err := cleanName("name", name)
	if err != nil {
		return nil, err
	}
	id, now, err := r.newEntityID()
	if err != nil {
		return nil, err
	}
	o := &Organization{ID: id, Name: name, CreatedAt: now}
	item, err := organizationEntity.encode(o)
	if err != nil {
		return nil, err
	}
	if err := r.transact(ctx, "create organization", []txItem{r.putNew(item, apperr.Errorf(apperr.CodeConflict, "organization already exists"))}); err != nil {
		return nil, err
	}
	return o, nil
}

// CreateUser stores a new user and the item that reserves its email inside the organization, in
// one transaction that also checks that the organization exists.
func (r *Repo) CreateUser(ctx context.Context, org, name, email string) (*User, error) {
	if err := checkID("organizationId", org); err != nil {
		return nil, err
	}
	name, err := cleanName("name", name)
	if err != nil {
		return nil, err
	}
	email, err = cleanEmail("email", email)
	if err != nil {
		return nil, err
	}
	id, now, err := r.newEntityID()
	if err != nil {
		return nil, err
	}
	u := &User{ID: id, OrgID: org, Name: name, Email: email, CreatedAt: now}
	item, err := userEntity.encode(u)
	if err != nil {
		return nil, err
	}
	err = r.transact(ctx, "create user", []txItem{
		r.mustExist(orgKey(org), apperr.NotFound("organization")),
		r.putNew(emailGuardItem(u), &apperr.Error{Code: apperr.CodeConflict, Field: "email", Message: "a user with this email already exists in the organization"}),
		r.putNew(item, apperr.Errorf(apperr.CodeConflict, "user already exists")),
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// CreateTicket stores a new open ticket reported by a user, checking that the user exists.
func (r *Repo) CreateTicket(ctx context.Context, org, reporter, title, body string) (*Ticket, error) {
	if err := errors.Join(checkID("reporterId", org), checkID("reporterId", reporter)); err != nil {
		return nil, apperr.InvalidInput("reporterId", "reporterId is not a valid user id")
	}
	title, err := cleanText("title", title, 1, maxTitleLen, false)
	if err != nil {
		return nil, err
	}
	body, err = cleanText("body", body, 1, maxBodyLen, true)
	if err != nil {
		return nil, err
	}
	id, now, err := r.newEntityID()
	if err != nil {
		return nil, err
	}
	t := &Ticket{ID: id, OrgID: org, ReporterID: reporter, Title: title, Body: body, Status: TicketOpen, CreatedAt: now, UpdatedAt: now}
	item, err := ticketEntity.encode(t)
	if err != nil {
		return nil, err
	}
	err = r.transact(ctx, "create ticket", []txItem{
		r.mustExist(userKey(org, reporter), apperr.NotFound("reporter")),
		r.putNew(item, apperr.Errorf(apperr.CodeConflict, "ticket already exists")),
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// TicketPatch lists the fields updateTicket may change; nil leaves a field as it is.
type TicketPatch struct {
	Status *TicketStatus
	Title  *string
	Body   *string
}

// UpdateTicket changes a ticket's status, title or body.
func (r *Repo) UpdateTicket(ctx context.Context, id string, p TicketPatch) (*Ticket, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	if p.Status == nil && p.Title == nil && p.Body == nil {
		return nil, apperr.InvalidInput("input", "give at least one of status, title, body")
	}
	upd := expression.Set(expression.Name("updatedAt"), expression.Value(r.now().UTC()))
	if p.Status != nil {
		if !p.Status.valid() {
			return nil, apperr.InvalidInput("status", "unknown ticket status")
		}
		upd = upd.Set(expression.Name("status"), expression.Value(*p.Status))
	}
	if p.Title != nil {
		title, err := cleanText("title", *p.Title, 1, maxTitleLen, false)
		if err != nil {
			return nil, err
		}
		upd = upd.Set(expression.Name("title"), expression.Value(title))
	}
	if p.Body != nil {
		body, err := cleanText("body", *p.Body, 1, maxBodyLen, true)
		if err != nil {
			return nil, err
		}
		upd = upd.Set(expression.Name("body"), expression.Value(body))
	}
	expr, err := expression.NewBuilder().
		WithUpdate(upd).
		WithCondition(expression.AttributeExists(expression.Name(attrPK))).
		Build()
	if err != nil {
		return nil, apperr.Internal("update ticket", err)
	}
	k := ticketKey(id)
	out, err := r.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(r.table),
		Key:                       k.attributes(),
		UpdateExpression:          expr.Update(),
		ConditionExpression:       expr.Condition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ReturnValues:              types.ReturnValueAllNew,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil, apperr.NotFound("ticket")
	}
	if err != nil {
		return nil, apperr.Classify("update ticket", err)
	}
	return decodeAs[*Ticket](out.Attributes)
}

// ListOrganizations lists organizations by name (AP7): a Query of the Organization partition of
// the entity-type index GSI2, never a Scan.
func (r *Repo) ListOrganizations(ctx context.Context, args PageArgs) (Page[*Organization], error) {
	return listByType[*Organization](ctx, r, typeOrganization, args)
}

func usersQuery(org string) pageQuery {
	return pageQuery{
		scope:   join("users", orgPK(org)),
		keyCond: "PK = :pk AND begins_with(SK, :users)",
		values:  map[string]types.AttributeValue{":pk": s(orgPK(org)), ":users": s(userSKPrefix)},
	}
}

// UsersOfOrganization pages through an organization's users (AP3):
// Query PK=ORG#<o> AND begins_with(SK, "USER#").
func (r *Repo) UsersOfOrganization(ctx context.Context, org string, args PageArgs) (Page[*User], error) {
	if err := checkID("id", org); err != nil {
		return Page[*User]{}, err
	}
	return queryPage[*User](ctx, r, usersQuery(org), args)
}

// OrganizationWithUsers reads an organization and the first page of its users with ONE Query of
// its item collection, PK=ORG#<o> (AP2): the organization's item sorts before its users. The
// users' cursors continue in UsersOfOrganization.
func (r *Repo) OrganizationWithUsers(ctx context.Context, org string, first int) (*Organization, Page[*User], error) {
	if err := checkID("id", org); err != nil {
		return nil, Page[*User]{}, err
	}
	args := PageArgs{First: first}
	if err := args.Validate(); err != nil {
		return nil, Page[*User]{}, err
	}
	items, err := r.queryItems(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(r.table),
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(orgPK(org))},
		Limit:                     aws.Int32(int32(args.First + 2)),
	}, args.First+2)
	if err != nil {
		return nil, Page[*User]{}, err
	}
	if len(items) == 0 || stringAttr(items[0], attrType) != typeOrganization {
		return nil, Page[*User]{}, apperr.NotFound("organization")
	}
	o, err := decodeAs[*Organization](items[0])
	if err != nil {
		return nil, Page[*User]{}, err
	}
	users, err := decodeAll[*User](items[1:])
	if err != nil {
		return nil, Page[*User]{}, err
	}
	return o, finishPage(r, usersQuery(org).scope, keyAttrs(""), users, items[1:], args), nil
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
	pk := userCollectionPK(org, user)
	q = pageQuery{
		index:      gsi1,
		descending: true,
		values:     map[string]types.AttributeValue{":pk": s(pk)},
	}
	lo, hi, empty := ticketSKPrefix, ticketSKPrefix+"\xff", false
	if f.CreatedAfter != nil || f.CreatedBefore != nil {
		loID, hiID, ok := idRange(f.CreatedAfter, f.CreatedBefore)
		lo, hi, empty = ticketGSI1SK(loID), ticketGSI1SK(hiID), !ok
	}
	scope := join("tickets", pk, esc(lo), esc(hi))
	if f.CreatedAfter == nil && f.CreatedBefore == nil {
		q.keyCond = "GSI1PK = :pk AND begins_with(GSI1SK, :lo)"
		q.values[":lo"] = s(ticketSKPrefix)
	} else {
		if empty {
			return q, false, nil
		}
		q.keyCond = "GSI1PK = :pk AND GSI1SK BETWEEN :lo AND :hi"
		q.values[":lo"], q.values[":hi"] = s(lo), s(hi)
	}
	if f.Status != nil {
		if !f.Status.valid() {
			return q, false, apperr.InvalidInput("status", "unknown ticket status")
		}
		q.filter = "#status = :status"
		q.names = map[string]string{"#status": "status"}
		q.values[":status"] = s(string(*f.Status))
		scope = join(scope, string(*f.Status))
	}
	q.scope = scope
	return q, true, nil
}

// TicketsOfUser pages through a user's tickets, newest first (AP5).
func (r *Repo) TicketsOfUser(ctx context.Context, org, user string, f TicketFilter, args PageArgs) (Page[*Ticket], error) {
	if err := errors.Join(checkID("id", org), checkID("id", user)); err != nil {
		return Page[*Ticket]{}, apperr.InvalidInput("id", "not a valid user id")
	}
	q, ok, err := ticketsQuery(org, user, f)
	if err != nil {
		return Page[*Ticket]{}, err
	}
	if !ok {
		return Page[*Ticket]{HasPreviousPage: args.After != ""}, args.Validate()
	}
	return queryPage[*Ticket](ctx, r, q, args)
}

// UserWithTickets reads a user and the first page of its newest tickets with ONE Query of the
// user's GSI1 collection read backwards: the user item sorts last, so it comes first (seed 000).
func (r *Repo) UserWithTickets(ctx context.Context, org, user string, first int) (*User, Page[*Ticket], error) {
	if err := errors.Join(checkID("id", org), checkID("id", user)); err != nil {
		return nil, Page[*Ticket]{}, apperr.InvalidInput("id", "not a valid user id")
	}
	args := PageArgs{First: first}
	if err := args.Validate(); err != nil {
		return nil, Page[*Ticket]{}, err
	}
	pk := userCollectionPK(org, user)
	items, err := r.queryItems(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(r.table),
		IndexName:                 aws.String(gsi1),
		KeyConditionExpression:    aws.String("GSI1PK = :pk AND GSI1SK <= :user"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(pk), ":user": s(userGSI1SK(user))},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(args.First + 2)),
	}, args.First+2)
	if err != nil {
		return nil, Page[*Ticket]{}, err
	}
	if len(items) == 0 || stringAttr(items[0], attrType) != typeUser {
		return nil, Page[*Ticket]{}, apperr.NotFound("user")
	}
	u, err := decodeAs[*User](items[0])
	if err != nil {
		return nil, Page[*Ticket]{}, err
	}
	tickets, err := decodeAll[*Ticket](items[1:])
	if err != nil {
		return nil, Page[*Ticket]{}, err
	}
	q, _, _ := ticketsQuery(org, user, TicketFilter{})
	return u, finishPage(r, q.scope, keyAttrs(gsi1), tickets, items[1:], args), nil
}
