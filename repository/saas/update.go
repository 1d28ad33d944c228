package saas

import (
	"context"

	"singletable/apperr"
	"singletable/repository"
)

// errEmailTaken is the CONFLICT of a user email another user of the organization has.
var errEmailTaken = &apperr.Error{Code: apperr.CodeConflict, Field: "email", Message: "a user with this email already exists in the organization"}

// errUserChanged: the user's email changed between the read and the transaction.
var errUserChanged = apperr.Errorf(apperr.CodeConflict, "the user was changed by a concurrent change; read it again and retry")

// UpdateOrganizationPlan is what UpdateOrganization does (explain plans the mutation from it).
var UpdateOrganizationPlan = repository.WritePlan{Calls: []repository.WriteCall{repository.ConsistentRead("PK = ORG#<o>, SK = METADATA#<o>"), repository.TransactCall("Update ORG#<o> METADATA#<o> and its GSI2 keys if it exists")}}

// UpdateOrganization renames an organization: one Update of its item (and of its place in the
// by-name listing), conditioned on its existence.
func (r *SaaS) UpdateOrganization(ctx context.Context, org string, name *string) (*Organization, error) {
	if err := repository.CheckID("id", org); err != nil {
		return nil, err
	}
	if name == nil {
		return nil, repository.NoChange("name")
	}
	clean, err := repository.CleanName("name", *name)
	if err != nil {
		return nil, err
	}
	cur, err := repository.ReadLive[*Organization](ctx, r.Repo, OrgKey(org), apperr.NotFound("organization"))
	if err != nil {
		return nil, err
	}
	next := *cur
	next.Name = clean
	item, err := organizationEntity.Encode(&next)
	if err != nil {
		return nil, err
	}
	err = r.Transact(ctx, "update organization", []repository.TxItem{
		r.TxSetFrom(OrgKey(org), item, []string{"name"}, true, repository.Condition{Expr: repository.NotDeleting, Err: apperr.NotFound("organization")}),
	})
	if err != nil {
		return nil, err
	}
	return &next, nil
}

// UpdateUserPlan is what UpdateUser does (explain plans the mutation from it).
var UpdateUserPlan = repository.WritePlan{Calls: []repository.WriteCall{repository.ConsistentRead("PK = ORG#<o>, SK = USER#<u>"),
	repository.TransactCall("Update USER#<u> if its email is as read; Put the new email guard if absent, Delete the old one; check ORG#<o> is not being removed")}}

// UpdateUser changes a user's name or email. A new email moves the user's uniqueness guard in the
// same transaction: the old guard is removed (on condition that it is the user's), the new one
// put (CONFLICT if another user holds it), and the user updated on condition that its email is
// still the one read, so two concurrent changes of one user's email cannot leave a stray guard.
func (r *SaaS) UpdateUser(ctx context.Context, org, user string, name, email *string) (*User, error) {
	if err := repository.CheckID("id", org); err != nil {
		return nil, err
	}
	if err := repository.CheckID("id", user); err != nil {
		return nil, err
	}
	next, err := repository.UserPatch{Name: name, Email: email}.Clean()
	if err != nil {
		return nil, err
	}
	cur, err := repository.ReadLive[*User](ctx, r.Repo, UserKeyOf(org, user), apperr.NotFound("user"))
	if err != nil {
		return nil, err
	}
	r.AfterCorrectionRead()
	u := patched(cur, next)
	item, err := UserEntity.Encode(u)
	if err != nil {
		return nil, err
	}
	items := r.GuardedEmailItems(repository.GuardedEmail{Key: UserKeyOf(org, user), Fields: next.Fields(), Next: item, ReadEmail: cur.Email,
		OldGuard: emailGuardKey(org, cur.Email), NewGuard: EmailGuardItem(u), Owner: "userId", ID: user,
		Taken: errEmailTaken, Changed: errUserChanged})
	items = append(items, r.OrgLive(org, apperr.NotFound("user")))
	if err := r.Transact(ctx, "update user", items); err != nil {
		return nil, err
	}
	return u, nil
}

// patched is cur with what p gives.
func patched(cur *User, p repository.UserPatch) *User {
	next := *cur
	if p.Name != nil {
		next.Name = *p.Name
	}
	if p.Email != nil {
		next.Email = *p.Email
	}
	return &next
}
