package commerce

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// CreateCustomer stores a new customer with up to MaxMailingAddresses addresses, and the item that
// reserves its email, in one transaction.
func (r *Commerce) CreateCustomer(ctx context.Context, name, email string, addresses []MailingAddress) (*Customer, error) {
	name, email, err := repository.CleanNameAndEmail(name, email)
	if err != nil {
		return nil, err
	}
	if len(addresses) > repository.MaxMailingAddresses {
		return nil, apperr.InvalidInput("mailingAddresses", "a customer has at most %d mailing addresses", repository.MaxMailingAddresses)
	}
	clean := make([]MailingAddress, len(addresses))
	for i, a := range addresses {
		if clean[i], err = cleanAddress(fmt.Sprintf("mailingAddresses[%d]", i), a); err != nil {
			return nil, err
		}
	}
	id, now, err := r.NewEntityID()
	if err != nil {
		return nil, err
	}
	c := &Customer{ID: id, Name: name, Email: email, Addresses: clean, CreatedAt: now, Counted: true}
	return repository.CreateNew(ctx, r.Repo, customerEntity, c, "customer",
		r.PutNew(customerEmailGuardItem(c), &apperr.Error{Code: apperr.CodeConflict, Field: "email", Message: "a customer with this email already exists"}))
}

// AddMailingAddress appends an address to a customer's list with ONE conditional UpdateItem:
// SET mailingAddresses = list_append(mailingAddresses, [address]) if the customer exists and has
// fewer than MaxMailingAddresses addresses. The count is checked by DynamoDB as part of the write,
// so concurrent additions to a customer at 19 addresses let exactly one through. When the
// condition fails, the item as it was (ReturnValuesOnConditionCheckFailure=ALL_OLD) tells a
// missing customer (NOT_FOUND) from a full list (BAD_USER_INPUT) without another read.
func (r *Commerce) AddMailingAddress(ctx context.Context, customer string, address MailingAddress) (*Customer, error) {
	if err := repository.CheckID("customerId", customer); err != nil {
		return nil, err
	}
	address, err := cleanAddress("address", address)
	if err != nil {
		return nil, err
	}
	added, err := attributevalue.Marshal([]MailingAddress{address})
	if err != nil {
		return nil, apperr.Internal("add mailing address", err)
	}
	out, err := r.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(r.Table()),
		Key:                 CustomerKeyOf(customer).Attributes(),
		UpdateExpression:    aws.String("SET #addresses = list_append(if_not_exists(#addresses, :empty), :added)"),
		ConditionExpression: aws.String(repository.NotDeleting + " AND (attribute_not_exists(#addresses) OR size(#addresses) < :max)"),
		ExpressionAttributeNames: map[string]string{
			"#addresses": "mailingAddresses",
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":empty": &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
			":added": added,
			":max":   &types.AttributeValueMemberN{Value: fmt.Sprint(repository.MaxMailingAddresses)},
		},
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		if _, erased := ccf.Item[repository.AttrDeleting]; len(ccf.Item) == 0 || erased {
			return nil, apperr.NotFound("customer")
		}
		return nil, apperr.InvalidInput("address", "a customer has at most %d mailing addresses", repository.MaxMailingAddresses)
	}
	if err != nil {
		return nil, apperr.Classify("add mailing address", err)
	}
	return repository.DecodeAs[*Customer](out.Attributes)
}
