package benchfloor

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// A Client reads the table for the floor: the SDK client a repository of the same configuration
// uses (repository.NewClient: the same transport, retries and call metering), without the
// repository itself.
type Client struct {
	db    *dynamodb.Client
	table string
}

// Open is the floor's client for the table cfg names.
func Open(ctx context.Context, cfg repository.Config) (*Client, error) {
	db, err := repository.NewClient(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Client{db: db, table: cfg.Table}, nil
}

// The limits of a batch read, as the API's: the most keys one BatchGetItem takes, and the tries
// for UnprocessedKeys.
const (
	maxBatchGetKeys = 100
	batchAttempts   = 8
)

// gsi1 is the first global secondary index (repository/table.go declares it).
const gsi1 = "GSI1"

// spell spells the keys and partitions the floor reads, from the repository's exported key
// functions, so that they cannot drift from the API's: an index partition is the key of the item
// it collects under, joined to the sort key that names the collection. The floor's ids come from
// the dataset the benchmark seeded; one a key function refuses spells as the zero key, which
// reads nothing.
type spell struct{}

func (spell) S(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func (spell) GSI1() string { return gsi1 }

func item(k repository.Key) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": spell{}.S(k.PK), "SK": spell{}.S(k.SK)}
}

func must(k repository.Key, _ error) repository.Key { return k }

// OrgPK is the partition of an organization's item collection (the organization and its users).
func (spell) OrgPK(org string) string { return must(saas.OrganizationKey(org)).PK }

// UserTicketsPK is the GSI1 partition of a user's tickets: ORG#<o>#USER#<u>.
func (x spell) UserTicketsPK(org, user string) string {
	return x.OrgPK(org) + "#" + x.UserKey(org, user).SK
}

// TicketSKPrefix begins the GSI1 sort key of every ticket, as it begins the ticket's own
// partition.
func (spell) TicketSKPrefix() string {
	const id = "01J00000000000000000000000"
	return strings.TrimSuffix(must(saas.TicketKey(id, id)).PK, id)
}

func (spell) UserKey(org, user string) repository.Key { return must(saas.UserKey(org, user)) }
func (spell) DepartmentKey(d string) repository.Key   { return must(hr.DepartmentKey(d)) }
func (spell) EmployeeKey(e string) repository.Key     { return must(hr.EmployeeKey(e)) }
func (spell) CustomerKey(c string) repository.Key     { return must(commerce.CustomerKey(c)) }

func (spell) RelationKey(e string, rel hr.RelationType) repository.Key {
	return must(hr.RelationKey(e, rel))
}

// RelationTargetPK is the GSI1 partition holding the relation items of type rel that point at a
// department (DEPT#<d>#REL#DEPARTMENT): the department's partition, then the relation's sort key.
func (x spell) RelationTargetPK(rel hr.RelationType, department string) string {
	return x.DepartmentKey(department).PK + "#" + x.RelationKey(department, rel).SK
}

// CustomerPK is the partition of a customer's item collection (profile, orders, items).
func (x spell) CustomerPK(c string) string { return x.CustomerKey(c).PK }

// CustomerProfileSK is the sort key of a customer's profile item, which sorts after its orders.
func (x spell) CustomerProfileSK() string { return x.CustomerKey("01J00000000000000000000000").SK }

// OldestOrderSK sorts before the sort key of every order of a customer: that of the lowest id.
func (spell) OldestOrderSK() string {
	return must(commerce.OrderKey("01J00000000000000000000000", "00000000000000000000000000")).SK
}

func (spell) ProductKey(p string) repository.Key  { return must(catalog.ProductKey(p)) }
func (spell) OrderKey(c, o string) repository.Key { return must(commerce.OrderKey(c, o)) }

// ProductOrderItemsPK is the GSI1 partition of a product's order lines (AP25).
func (spell) ProductOrderItemsPK(p string) string {
	pk, _ := commerce.ProductOrderItemsPK(p)
	return pk
}

// WarehouseKey is a warehouse's key (AP23), for the staff tree's first round.
func (spell) WarehouseKey(w string) repository.Key { return must(catalog.WarehouseKey(w)) }

// WarehouseStaffPK is the GSI1 partition holding the warehouse relation items that point at
// warehouse w (WAREHOUSE#<w>#REL#WAREHOUSE): the warehouse's staff, by employee.
func (x spell) WarehouseStaffPK(w string) string {
	return x.WarehouseKey(w).PK + "#" + x.RelationKey(w, hr.RelWarehouse).SK
}
