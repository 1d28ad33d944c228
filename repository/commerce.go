package repository

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// The Commerce domain, Customer → Orders → order items, modelled as in seeds 000 and 001:
//
//	Customer       PK=CUST#<c>  SK=PROFILE                 GSI2: TYPE#Customer / <name>#<c>
//	Order          PK=CUST#<c>  SK=ORDER#<o>               GSI1: CUST#<c>#ORDERS / <status>#<o>
//	                                                       GSI3: ORDERSTATUS#<status>#<shard> / <o>
//	OrderItem      PK=CUST#<c>  SK=ORDER#<o>#ITEM#<nnn>
//	CustomerEmail  PK=CUSTEMAIL#<email>            SK=CUSTEMAIL    (a customer's email is unique)
//	OrderIdempotency PK=IDEMPOTENCY#<c>#<key>      SK=IDEMPOTENCY  (placeOrder's idempotency guard)
//
// Mailing addresses are a list attribute of the customer item (000 strategy 1). Orders and their
// items share the customer's item collection (000 strategy 3): read newest first from the top,
// the collection yields the customer, then each order's items followed by the order itself, so
// one Query answers "a customer with its newest orders and their items". Order ids are
// time-sortable, which turns placedAfter/placedBefore into a sort key range.

// MaxMailingAddresses bounds a customer's mailing addresses (seed 000: "at most 20 addresses
// should cover almost every use case and stay clear of the 400 KB item limit").
const MaxMailingAddresses = 20

// Length limits of commerce text fields.
const (
	maxAddressLabelLen = 50
	maxAddressLineLen  = 200
	maxCityLen         = 100
	maxStateLen        = 100
	maxPostalCodeLen   = 20
	maxCountryLen      = 100
)

// MailingAddress is one saved address of a customer. Line2, State and PostalCode are optional
// (empty when absent: not every country has states or postal codes).
type MailingAddress struct {
	Label      string `dynamodbav:"label"`
	Line1      string `dynamodbav:"line1"`
	Line2      string `dynamodbav:"line2,omitempty"`
	City       string `dynamodbav:"city"`
	State      string `dynamodbav:"state,omitempty"`
	PostalCode string `dynamodbav:"postalCode,omitempty"`
	Country    string `dynamodbav:"country"`
}

// Customer is a shopper's account.
//
// Its mailing addresses live inside the customer item as a list attribute (seed 000 strategy 1,
// "denormalise with a complex attribute"), because the seed's two questions both answer no:
//   - Is there an access pattern on the addresses' values? No: nothing looks a customer up by
//     address; addresses are only ever shown with their customer (a checkout page), so reading
//     them with the customer item costs nothing extra.
//   - Is the amount of data unbounded? No: a customer keeps at most MaxMailingAddresses (20)
//     addresses of bounded length, far below the 400 KB item limit; the bound is enforced by
//     the condition of every write that adds one, so it holds under concurrent writers too.
type Customer struct {
	ID        string           `dynamodbav:"id"`
	Name      string           `dynamodbav:"name"`
	Email     string           `dynamodbav:"email"`
	Addresses []MailingAddress `dynamodbav:"mailingAddresses"`
	CreatedAt time.Time        `dynamodbav:"createdAt"`
}

// Key implements Entity.
func (c *Customer) Key() Key { return customerEntity.key(c) }

// customerEntity is the definition of the Customer item: the profile item of its collection, which
// sorts after the customer's orders and their items (AP15–AP17), listed by name on GSI2 (AP7).
// Its addresses are a list attribute of the item.
var customerEntity = entity[Customer, *Customer]{
	name: typeCustomer,
	key:  func(c *Customer) Key { return customerKey(c.ID) },
	indexes: func(c *Customer, _ int) []indexKey {
		return []indexKey{{gsi2, typePK(typeCustomer), nameSortKey(c.Name, c.ID)}}
	},
	// Always a list, never NULL or absent, so that list_append and size() apply to it.
	fix: func(c *Customer, item map[string]types.AttributeValue) {
		if len(c.Addresses) == 0 {
			item["mailingAddresses"] = &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
		}
	},
	examples: func() []*Customer { return []*Customer{{ID: "<customerId>", Name: "<name>"}} },
}

// CustomerKey is the key of a customer looked up by id (AP15).
func CustomerKey(customer string) (Key, error) {
	if err := checkID("id", customer); err != nil {
		return Key{}, err
	}
	return customerKey(customer), nil
}

func customerEmailGuardItem(c *Customer) map[string]types.AttributeValue {
	item := customerEmailGuardKey(c.Email).attributes()
	item[attrType] = s(typeCustomerEmail)
	item["customerId"] = s(c.ID)
	return item
}

// cleanAddress checks and trims one address; field prefixes the names of its fields in errors
// (for example "address" or "mailingAddresses[2]").
func cleanAddress(field string, a MailingAddress) (MailingAddress, error) {
	var err error
	clean := func(name string, v *string, minLen, maxLen int) {
		if err == nil {
			*v, err = cleanText(field+"."+name, *v, minLen, maxLen, false)
		}
	}
	clean("label", &a.Label, 1, maxAddressLabelLen)
	clean("line1", &a.Line1, 1, maxAddressLineLen)
	clean("line2", &a.Line2, 0, maxAddressLineLen)
	clean("city", &a.City, 1, maxCityLen)
	clean("state", &a.State, 0, maxStateLen)
	clean("postalCode", &a.PostalCode, 0, maxPostalCodeLen)
	clean("country", &a.Country, 1, maxCountryLen)
	return a, err
}

// CreateCustomer stores a new customer with up to MaxMailingAddresses addresses, and the item that
// reserves its email, in one transaction.
func (r *Repo) CreateCustomer(ctx context.Context, name, email string, addresses []MailingAddress) (*Customer, error) {
	name, err := cleanName("name", name)
	if err != nil {
		return nil, err
	}
	email, err = cleanEmail("email", email)
	if err != nil {
		return nil, err
	}
	if len(addresses) > MaxMailingAddresses {
		return nil, apperr.InvalidInput("mailingAddresses", "a customer has at most %d mailing addresses", MaxMailingAddresses)
	}
	clean := make([]MailingAddress, len(addresses))
	for i, a := range addresses {
		if clean[i], err = cleanAddress(fmt.Sprintf("mailingAddresses[%d]", i), a); err != nil {
			return nil, err
		}
	}
	id, now, err := r.newEntityID()
	if err != nil {
		return nil, err
	}
	c := &Customer{ID: id, Name: name, Email: email, Addresses: clean, CreatedAt: now}
	item, err := customerEntity.encode(c)
	if err != nil {
		return nil, err
	}
	err = r.transact(ctx, "create customer", []txItem{
		r.putNew(customerEmailGuardItem(c), &apperr.Error{Code: apperr.CodeConflict, Field: "email", Message: "a customer with this email already exists"}),
		r.putNew(item, apperr.Errorf(apperr.CodeConflict, "customer already exists")),
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// AddMailingAddress appends an address to a customer's list with ONE conditional UpdateItem:
// SET mailingAddresses = list_append(mailingAddresses, [address]) if the customer exists and has
// fewer than MaxMailingAddresses addresses. The count is checked by DynamoDB as part of the write,
// so concurrent additions to a customer at 19 addresses let exactly one through. When the
// condition fails, the item as it was (ReturnValuesOnConditionCheckFailure=ALL_OLD) tells a
// missing customer (NOT_FOUND) from a full list (BAD_USER_INPUT) without another read.
func (r *Repo) AddMailingAddress(ctx context.Context, customer string, address MailingAddress) (*Customer, error) {
	if err := checkID("customerId", customer); err != nil {
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
	out, err := r.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(r.table),
		Key:                 customerKey(customer).attributes(),
		UpdateExpression:    aws.String("SET #addresses = list_append(if_not_exists(#addresses, :empty), :added)"),
		ConditionExpression: aws.String("attribute_exists(PK) AND (attribute_not_exists(#addresses) OR size(#addresses) < :max)"),
		ExpressionAttributeNames: map[string]string{
			"#addresses": "mailingAddresses",
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":empty": &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
			":added": added,
			":max":   &types.AttributeValueMemberN{Value: fmt.Sprint(MaxMailingAddresses)},
		},
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		if len(ccf.Item) == 0 {
			return nil, apperr.NotFound("customer")
		}
		return nil, apperr.InvalidInput("address", "a customer has at most %d mailing addresses", MaxMailingAddresses)
	}
	if err != nil {
		return nil, apperr.Classify("add mailing address", err)
	}
	return decodeAs[*Customer](out.Attributes)
}

// ListCustomers lists customers by name (AP7): a Query of the Customer partition of the
// entity-type index GSI2, never a Scan.
func (r *Repo) ListCustomers(ctx context.Context, args PageArgs) (Page[*Customer], error) {
	return listByType[*Customer](ctx, r, typeCustomer, args)
}
