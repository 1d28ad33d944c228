package repository

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Raw is the direct access a tool outside this package needs to read the table with hand-written
// SDK calls: the client, the key spellings and the item decoder. Its one user is the benchmark's
// floor (package repository/benchfloor), which must spell keys exactly as the API does without
// copying the formats. The server never calls it.
type Raw struct{ r *Repo }

// Raw returns r's direct access.
func (r *Repo) Raw() Raw { return Raw{r} }

// Client is the SDK client, with the same middleware (call metering, added latency) as the API's.
func (x Raw) Client() *dynamodb.Client { return x.r.db }

// Table is the table name.
func (x Raw) Table() string { return x.r.table }

// BatchAttempts bounds the BatchGetItem retries of UnprocessedKeys, as for the API's reads.
func (x Raw) BatchAttempts() int { return x.r.attempts }

// MaxBatchGetKeys is the most keys one BatchGetItem call takes.
const MaxBatchGetKeys = maxBatchGetKeys

// Decode decodes an item into the entity its `type` attribute names.
func (Raw) Decode(item map[string]types.AttributeValue) (Entity, error) { return decodeEntity(item) }

// Item is k as the key attributes of a request.
func (Raw) Item(k Key) map[string]types.AttributeValue { return k.attributes() }

// S is a string attribute value.
func (Raw) S(v string) types.AttributeValue { return s(v) }

// GSI1 is the name of the first global secondary index.
func (Raw) GSI1() string { return gsi1 }

// OrgPK is the partition key of an organization's item collection (the organization and its
// users).
func (Raw) OrgPK(org string) string { return orgPK(org) }

// UserTicketsPK is the GSI1 partition of a user's tickets (the user item sorts last).
func (Raw) UserTicketsPK(org, user string) string { return userCollectionPK(org, user) }

// TicketSKPrefix begins the GSI1 sort key of every ticket.
func (Raw) TicketSKPrefix() string { return ticketSKPrefix }

// UserKey is the key of a user.
func (Raw) UserKey(org, user string) Key { return userKey(org, user) }

// DepartmentKey is the key of a department.
func (Raw) DepartmentKey(d string) Key { return deptKey(d) }

// EmployeeKey is the key of an employee.
func (Raw) EmployeeKey(e string) Key { return empKey(e) }

// RelationKey is the key of an employee's relation item of one type.
func (Raw) RelationKey(e string, rel RelationType) Key { return relationKey(e, rel) }

// RelationTargetPK is the GSI1 partition holding the relation items of one type that point at
// target (a department's members, a manager's reports).
func (Raw) RelationTargetPK(rel RelationType, target string) string {
	return relationGSI1PK(rel, target)
}

// CustomerPK is the partition key of a customer's item collection (profile, orders, items).
func (Raw) CustomerPK(c string) string { return customerPK(c) }

// CustomerKey is the key of a customer's profile item.
func (Raw) CustomerKey(c string) Key { return customerKey(c) }

// CustomerProfileSK is the sort key of a customer's profile item, which sorts after its orders.
func (Raw) CustomerProfileSK() string { return customerProfileSK }

// OldestOrderSK sorts before the sort key of every order of a customer.
func (Raw) OldestOrderSK() string {
	lo, _, _ := idRange(nil, nil)
	return orderSK(lo)
}
