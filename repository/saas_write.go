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

// newEntityID returns a fresh id and the creation time it encodes (millisecond precision, UTC).
func (r *Repo) newEntityID() (string, time.Time, error) {
	id, err := r.ids.newID(r.now())
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

// UpdateTicket changes the status, title or body of ticket id of organization org. A ticket of
// another organization is NOT_FOUND, as a missing one: its key is spelled with org.
func (r *Repo) UpdateTicket(ctx context.Context, org, id string, p TicketPatch) (*Ticket, error) {
	k, err := TicketKey(org, id)
	if err != nil {
		return nil, err
	}
	if p.Status == nil && p.Title == nil && p.Body == nil {
		return nil, apperr.InvalidInput("input", "give at least one of status, title, body")
	}
	upd := expression.Set(expression.Name("updatedAt"), expression.Value(r.stamp()))
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
