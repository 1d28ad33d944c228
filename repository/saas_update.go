package repository

import (
	"context"

	"singletable/apperr"
)

// errEmailTaken is the CONFLICT of a user email another user of the organization has.
var errEmailTaken = &apperr.Error{Code: apperr.CodeConflict, Field: "email", Message: "a user with this email already exists in the organization"}

// errUserChanged: the user's email changed between the read and the transaction.
var errUserChanged = apperr.Errorf(apperr.CodeConflict, "the user was changed by a concurrent change; read it again and retry")

// UpdateOrganizationPlan is what UpdateOrganization does (explain plans the mutation from it).
var UpdateOrganizationPlan = WritePlan{Calls: []WriteCall{consistentRead("PK = ORG#<o>, SK = METADATA#<o>"), transactCall("Update ORG#<o> METADATA#<o> and its GSI2 keys if it exists")}}

// UpdateOrganization renames an organization: one Update of its item (and of its place in the
// by-name listing), conditioned on its existence.
func (r *Repo) UpdateOrganization(ctx context.Context, org string, name *string) (*Organization, error) {
	if err := checkID("id", org); err != nil {
		return nil, err
	}
	if name == nil {
		return nil, noChange("name")
	}
	clean, err := cleanName("name", *name)
	if err != nil {
		return nil, err
	}
	cur, err := ReadLive[*Organization](ctx, r, OrgKey(org), apperr.NotFound("organization"))
	if err != nil {
		return nil, err
	}
	next := *cur
	next.Name = clean
	item, err := organizationEntity.Encode(&next)
	if err != nil {
		return nil, err
	}
	err = r.Transact(ctx, "update organization", []TxItem{
		r.TxSetFrom(OrgKey(org), item, []string{"name"}, true, Condition{Expr: NotDeleting, err: apperr.NotFound("organization")}),
	})
	if err != nil {
		return nil, err
	}
	return &next, nil
}

// UpdateUserPlan is what UpdateUser does (explain plans the mutation from it).
var UpdateUserPlan = WritePlan{Calls: []WriteCall{consistentRead("PK = ORG#<o>, SK = USER#<u>"),
	transactCall("Update USER#<u> if its email is as read; Put the new email guard if absent, Delete the old one; check ORG#<o> is not being removed")}}

// UpdateUser changes a user's name or email. A new email moves the user's uniqueness guard in the
// same transaction: the old guard is removed (on condition that it is the user's), the new one
// put (CONFLICT if another user holds it), and the user updated on condition that its email is
// still the one read, so two concurrent changes of one user's email cannot leave a stray guard.
func (r *Repo) UpdateUser(ctx context.Context, org, user string, name, email *string) (*User, error) {
	if err := checkID("id", org); err != nil {
		return nil, err
	}
	if err := checkID("id", user); err != nil {
		return nil, err
	}
	next, err := userPatch{name, email}.clean()
	if err != nil {
		return nil, err
	}
	cur, err := ReadLive[*User](ctx, r, UserKeyOf(org, user), apperr.NotFound("user"))
	if err != nil {
		return nil, err
	}
	r.afterCorrectionRead()
	u := next.apply(cur)
	item, err := UserEntity.Encode(u)
	if err != nil {
		return nil, err
	}
	items := r.guardedEmailItems(guardedEmail{key: UserKeyOf(org, user), fields: next.fields(), next: item, readEmail: cur.Email,
		oldGuard: emailGuardKey(org, cur.Email), newGuard: EmailGuardItem(u), owner: "userId", id: user,
		taken: errEmailTaken, changed: errUserChanged})
	items = append(items, r.OrgLive(org, apperr.NotFound("user")))
	if err := r.Transact(ctx, "update user", items); err != nil {
		return nil, err
	}
	return u, nil
}

// userPatch is what updateUser may change; nil leaves a field as it is.
type userPatch struct{ name, email *string }

func (p userPatch) clean() (userPatch, error) {
	if p.name == nil && p.email == nil {
		return p, noChange("name, email")
	}
	if p.name != nil {
		v, err := cleanName("name", *p.name)
		if err != nil {
			return p, err
		}
		p.name = &v
	}
	if p.email != nil {
		v, err := cleanEmail("email", *p.email)
		if err != nil {
			return p, err
		}
		p.email = &v
	}
	return p, nil
}

// fields names the attributes the patch gives: the only ones its Update sets.
func (p userPatch) fields() []string {
	var out []string
	if p.name != nil {
		out = append(out, "name")
	}
	if p.email != nil {
		out = append(out, "email")
	}
	return out
}

func (p userPatch) apply(cur *User) *User {
	next := *cur
	if p.name != nil {
		next.Name = *p.name
	}
	if p.email != nil {
		next.Email = *p.email
	}
	return &next
}

// readLive reads the item at k consistently, as a T: onMissing if there is none, or if it is
// being removed.
func ReadLive[T Entity](ctx context.Context, r *Repo, k Key, onMissing error) (T, error) {
	var zero T
	found, err := r.ReadConsistent(ctx, k)
	if err != nil {
		return zero, err
	}
	v, ok := FoundAs[T](found, k)
	if !ok {
		return zero, onMissing
	}
	return v, nil
}
