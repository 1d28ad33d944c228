package commerce

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// errCustomerChanged: the customer changed between the read and the transaction.
var errCustomerChanged = apperr.Errorf(apperr.CodeConflict, "the customer was changed by a concurrent change; read it again and retry")

// errCustomerEmailTaken is the CONFLICT of an email another customer has.
var errCustomerEmailTaken = &apperr.Error{Code: apperr.CodeConflict, Field: "email", Message: "a customer with this email already exists"}

// UpdateCustomerPlan is what UpdateCustomer does (explain plans the mutation from it).
var UpdateCustomerPlan = repository.WritePlan{Calls: []repository.WriteCall{repository.ConsistentRead("PK = CUST#<c>, SK = PROFILE"),
	repository.TransactCall("Update CUST#<c> PROFILE if its email is as read; Put the new email guard if absent, Delete the old one")}}

// UpdateCustomer changes a customer's name or email; a new email moves its uniqueness guard in
// the same transaction (as UpdateUser does).
func (r *Commerce) UpdateCustomer(ctx context.Context, id string, name, email *string) (*Customer, error) {
	if err := repository.CheckID("id", id); err != nil {
		return nil, err
	}
	p, err := repository.UserPatch{Name: name, Email: email}.Clean()
	if err != nil {
		return nil, err
	}
	cur, err := repository.ReadLive[*Customer](ctx, r.Repo, CustomerKeyOf(id), apperr.NotFound("customer"))
	if err != nil {
		return nil, err
	}
	r.AfterCorrectionRead()
	next := *cur
	if p.Name != nil {
		next.Name = *p.Name
	}
	if p.Email != nil {
		next.Email = *p.Email
	}
	item, err := customerEntity.Encode(&next)
	if err != nil {
		return nil, err
	}
	items := r.GuardedEmailItems(repository.GuardedEmail{Key: CustomerKeyOf(id), Fields: p.Fields(), Next: item, ReadEmail: cur.Email,
		OldGuard: customerEmailGuardKey(cur.Email), NewGuard: customerEmailGuardItem(&next), Owner: "customerId", ID: id,
		Taken: errCustomerEmailTaken, Changed: errCustomerChanged})
	if err := r.Transact(ctx, "update customer", items); err != nil {
		return nil, err
	}
	return &next, nil
}

// UpdateMailingAddressPlan is what UpdateMailingAddress does (explain plans the mutation from it).
var UpdateMailingAddressPlan = repository.WritePlan{Calls: []repository.WriteCall{repository.ConsistentRead("PK = CUST#<c>, SK = PROFILE"), repository.TransactCall("Update mailingAddresses[i] of CUST#<c> PROFILE if it still has the label")}}

// UpdateMailingAddress replaces the customer's address labelled label with address.
func (r *Commerce) UpdateMailingAddress(ctx context.Context, customer, label string, address MailingAddress) (*Customer, error) {
	address, err := cleanAddress("address", address)
	if err != nil {
		return nil, err
	}
	return r.changeAddress(ctx, customer, label, &address)
}

// RemoveMailingAddressPlan is what RemoveMailingAddress does (explain plans the mutation from it).
var RemoveMailingAddressPlan = repository.WritePlan{Calls: []repository.WriteCall{repository.ConsistentRead("PK = CUST#<c>, SK = PROFILE"), repository.TransactCall("Remove mailingAddresses[i] of CUST#<c> PROFILE if it still has the label")}}

// RemoveMailingAddress removes the customer's address labelled label.
func (r *Commerce) RemoveMailingAddress(ctx context.Context, customer, label string) (*Customer, error) {
	return r.changeAddress(ctx, customer, label, nil)
}

// changeAddress replaces (with a non-nil address) or removes the address labelled label, compared
// without regard to case: one Update of the list element it found, conditioned on that element
// still having the label (a concurrent change of the list is CONFLICT). NOT_FOUND naming label if
// the customer has no such address; BAD_USER_INPUT if the new label is another address's.
func (r *Commerce) changeAddress(ctx context.Context, customer, label string, address *MailingAddress) (*Customer, error) {
	if err := repository.CheckID("customerId", customer); err != nil {
		return nil, err
	}
	label, err := repository.CleanText("label", label, 1, repository.MaxAddressLabelLen, false)
	if err != nil {
		return nil, err
	}
	c, err := repository.ReadLive[*Customer](ctx, r.Repo, CustomerKeyOf(customer), apperr.NotFound("customer"))
	if err != nil {
		return nil, err
	}
	at := -1
	for i, a := range c.Addresses {
		if strings.EqualFold(a.Label, label) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, repository.NotFoundField("label", "mailing address")
	}
	next := *c
	next.Addresses = append([]MailingAddress(nil), c.Addresses[:at]...)
	update := fmt.Sprintf("REMOVE mailingAddresses[%d]", at)
	values := map[string]types.AttributeValue{":label": repository.StringValue(c.Addresses[at].Label)}
	if address != nil {
		for i, a := range c.Addresses {
			if i != at && strings.EqualFold(a.Label, address.Label) {
				return nil, apperr.InvalidInput("address.label", "the customer has another address labelled %q", a.Label)
			}
		}
		v, err := attributevalue.Marshal(*address)
		if err != nil {
			return nil, apperr.Internal("update mailing address", err)
		}
		update, values[":a"] = fmt.Sprintf("SET mailingAddresses[%d] = :a", at), v
		next.Addresses = append(next.Addresses, *address)
	}
	next.Addresses = append(next.Addresses, c.Addresses[at+1:]...)
	cond := fmt.Sprintf("%s AND mailingAddresses[%d].#label = :label", repository.NotDeleting, at)
	if err := r.Transact(ctx, "change mailing address", []repository.TxItem{r.TxUpdate(CustomerKeyOf(customer), update, cond, map[string]string{"#label": "label"}, values, errCustomerChanged)}); err != nil {
		return nil, err
	}
	return &next, nil
}
