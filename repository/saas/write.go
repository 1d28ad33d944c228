package saas

import (
	"context"
	"errors"

	"singletable/apperr"
	"singletable/repository"
)

// CreateOrganizationPlan is what CreateOrganization does.
var CreateOrganizationPlan = repository.OneTransaction("Put ORG#<o> METADATA#<o> if absent")

// CreateOrganization stores a new organization.
func (r *SaaS) CreateOrganization(ctx context.Context, name string) (*Organization, error) {
	name, err := repository.CleanName("name", name)
	if err != nil {
		return nil, err
	}
	id, now, err := r.NewEntityID()
	if err != nil {
		return nil, err
	}
	return repository.CreateNew(ctx, r.Repo, organizationEntity, &Organization{ID: id, Name: name, CreatedAt: now, Counted: true}, "organization")
}

// CreateUserPlan is what CreateUser does.
var CreateUserPlan = repository.OneTransaction("Put USER#<u> and its email guard if absent; check ORG#<o> exists")

// CreateUser stores a new user and the item that reserves its email inside the organization, in
// one transaction that also counts the user on the organization (which must exist).
func (r *SaaS) CreateUser(ctx context.Context, org, name, email string) (*User, error) {
	if err := repository.CheckID("organizationId", org); err != nil {
		return nil, err
	}
	name, email, err := repository.CleanNameAndEmail(name, email)
	if err != nil {
		return nil, err
	}
	id, now, err := r.NewEntityID()
	if err != nil {
		return nil, err
	}
	u := &User{ID: id, OrgID: org, Name: name, Email: email, CreatedAt: now, Counted: true}
	return repository.CreateNew(ctx, r.Repo, UserEntity, u, "user",
		r.TxCount(OrgKey(org), []repository.Delta{{Attr: attrUserCount, By: 1}}, apperr.NotFound("organization"), repository.BeingRemoved(apperr.NotFound("organization"))),
		r.PutNew(EmailGuardItem(u), &apperr.Error{Code: apperr.CodeConflict, Field: "email", Message: "a user with this email already exists in the organization"}))
}

// OrgLive is the ConditionCheck that organization org exists and is not being removed, in every
// write under it but its removals: its users and tickets disappear with its mark (see batchGet),
// so a write that reached one of them between the mark and the sweep is refused with onGone, as
// under a missing organization, instead of adding to what the sweep is removing.
func (r *SaaS) OrgLive(org string, onGone error) repository.TxItem {
	return r.TxCheck(OrgKey(org), repository.NotDeleting, nil, nil, onGone)
}

// CreateTicketPlan is what CreateTicket does.
var CreateTicketPlan = repository.OneTransaction("Put TICKET#<t> and its first version if absent; count it on the reporter ORG#<o> USER#<u>, which must exist; check ORG#<o> is not being removed")

// CreateTicket stores a new open ticket reported by a user, at version 1, in one transaction with
// its first version item and the reporter's count of open tickets (the reporter must exist).
func (r *SaaS) CreateTicket(ctx context.Context, org, reporter, title, body string) (*Ticket, error) {
	if err := errors.Join(repository.CheckID("reporterId", org), repository.CheckID("reporterId", reporter)); err != nil {
		return nil, apperr.InvalidInput("reporterId", "reporterId is not a valid user id")
	}
	title, err := repository.CleanText("title", title, 1, repository.MaxTitleLen, false)
	if err != nil {
		return nil, err
	}
	body, err = repository.CleanText("body", body, 1, repository.MaxBodyLen, true)
	if err != nil {
		return nil, err
	}
	id, now, err := r.NewEntityID()
	if err != nil {
		return nil, err
	}
	t := &Ticket{ID: id, OrgID: org, ReporterID: reporter, Title: title, Body: body, Status: TicketOpen, CreatedAt: now, UpdatedAt: now, Version: 1}
	item, err := TicketEntity.Encode(t)
	if err != nil {
		return nil, err
	}
	first, err := TicketVersionEntity.Encode(VersionOf(t, now))
	if err != nil {
		return nil, err
	}
	err = r.Transact(ctx, "create ticket", []repository.TxItem{
		r.TxCount(UserKeyOf(org, reporter), []repository.Delta{{Attr: ticketCountAttr(TicketOpen), By: 1}}, apperr.NotFound("reporter"), repository.BeingRemoved(apperr.NotFound("reporter"))),
		r.PutNew(item, apperr.Errorf(apperr.CodeConflict, "ticket already exists")),
		r.PutNew(first, apperr.Errorf(apperr.CodeConflict, "ticket already exists")),
		r.OrgLive(org, apperr.NotFound("reporter")),
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}
