package repository

import (
	"context"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// A tally is one counted collection (counters.go): which items count toward which counter of
// which parent, and how to walk the parents and read one parent's collection from the table. It
// is the one definition -recount (recount.go) counts with and the sample data is counted with.
type tally struct {
	// parent is the item type that keeps the counters, attrs the counters.
	parent string
	attrs  []string
	// of names the parent and the counter an item counts toward; ok is false for an item of no
	// such collection. It reads only the attributes named by project.
	of      func(item map[string]types.AttributeValue) (parent Key, attr string, ok bool)
	project []string
	// each walks every parent item, through Queries (never a Scan).
	each func(ctx context.Context, r *Repo, fn func(Entity) error) error
	// collection is the Query of one parent's collection (the table name is added).
	collection func(parent Entity) *dynamodb.QueryInput
	// fromIndex says the collection is read from an index, which lags the table (see Recount).
	fromIndex bool
	// weight is what an item adds to its counter (one when nil): a sum rather than a count, such
	// as a product's stock over its warehouses. It reads only the attributes named by project.
	weight func(item map[string]types.AttributeValue) int
}

// add is what item adds to its counter.
func (t tally) add(item map[string]types.AttributeValue) int {
	if t.weight == nil {
		return 1
	}
	return t.weight(item)
}

// tallies are every counted collection.
var tallies = []tally{
	{
		parent: typeOrganization, attrs: []string{attrUserCount},
		project: []string{attrType, "orgId"},
		of: func(it map[string]types.AttributeValue) (Key, string, bool) {
			return orgKey(stringAttr(it, "orgId")), attrUserCount, stringAttr(it, attrType) == typeUser
		},
		each: func(ctx context.Context, r *Repo, fn func(Entity) error) error {
			return eachPage(func(a PageArgs) (Page[*Organization], error) { return r.ListOrganizations(ctx, a) }, entityFn[*Organization](fn))
		},
		collection: func(p Entity) *dynamodb.QueryInput {
			return keyQuery("PK = :pk AND begins_with(SK, :p)", orgPK(p.(*Organization).ID), userSKPrefix)
		},
	},
	{
		parent: typeUser, attrs: ticketCountAttrs(),
		project: []string{attrType, "orgId", "reporterId", "status"},
		of: func(it map[string]types.AttributeValue) (Key, string, bool) {
			return userKey(stringAttr(it, "orgId"), stringAttr(it, "reporterId")),
				ticketCountAttr(TicketStatus(stringAttr(it, "status"))), stringAttr(it, attrType) == typeTicket
		},
		each: func(ctx context.Context, r *Repo, fn func(Entity) error) error {
			return r.eachUser(ctx, entityFn[*User](fn))
		},
		collection: func(p Entity) *dynamodb.QueryInput {
			u := p.(*User)
			in := keyQuery("GSI1PK = :pk AND begins_with(GSI1SK, :p)", userCollectionPK(u.OrgID, u.ID), ticketSKPrefix)
			in.IndexName = aws.String(gsi1)
			return in
		},
		fromIndex: true,
	},
	relationTally(typeDepartment, attrEmployeeCount, RelDepartment,
		func(ctx context.Context, r *Repo, fn func(Entity) error) error {
			return eachPage(func(a PageArgs) (Page[*Department], error) { return r.ListDepartments(ctx, a) }, entityFn[*Department](fn))
		},
		func(p Entity) string { return p.(*Department).ID }),
	relationTally(typeEmployee, attrDirectReportCount, RelManager,
		func(ctx context.Context, r *Repo, fn func(Entity) error) error {
			return eachPage(func(a PageArgs) (Page[*Employee], error) { return r.EmployeesHiredSince(ctx, minHireTime, a) }, entityFn[*Employee](fn))
		},
		func(p Entity) string { return p.(*Employee).ID }),
	relationTally(typeEmployee, attrMenteeCount, RelMentor,
		func(ctx context.Context, r *Repo, fn func(Entity) error) error {
			return eachPage(func(a PageArgs) (Page[*Employee], error) { return r.EmployeesHiredSince(ctx, minHireTime, a) }, entityFn[*Employee](fn))
		},
		func(p Entity) string { return p.(*Employee).ID }),
	{
		parent: typeCustomer, attrs: orderCountAttrs(),
		project: []string{attrType, "customerId", "status"},
		of: func(it map[string]types.AttributeValue) (Key, string, bool) {
			return customerKey(stringAttr(it, "customerId")), orderCountAttr(OrderStatus(stringAttr(it, "status"))), stringAttr(it, attrType) == typeOrder
		},
		each: func(ctx context.Context, r *Repo, fn func(Entity) error) error {
			return eachPage(func(a PageArgs) (Page[*Customer], error) { return r.ListCustomers(ctx, a) }, entityFn[*Customer](fn))
		},
		// The orders with their items, from the table itself (a consistent read); the items
		// count toward nothing.
		collection: func(p Entity) *dynamodb.QueryInput {
			return keyQuery("PK = :pk AND begins_with(SK, :p)", customerPK(p.(*Customer).ID), orderSKPrefix)
		},
	},
	{
		// A product's totalInventory is the sum of its stock items' quantities, in its partition.
		parent: typeProduct, attrs: []string{attrTotalInventory},
		project: []string{attrType, "productId", attrQuantity},
		of: func(it map[string]types.AttributeValue) (Key, string, bool) {
			return productKey(stringAttr(it, "productId")), attrTotalInventory, stringAttr(it, attrType) == typeInventory
		},
		weight: func(it map[string]types.AttributeValue) int { return intAttr(it, attrQuantity) },
		each: func(ctx context.Context, r *Repo, fn func(Entity) error) error {
			return eachPage(func(a PageArgs) (Page[*Product], error) { return r.ListProducts(ctx, a) }, entityFn[*Product](fn))
		},
		collection: func(p Entity) *dynamodb.QueryInput {
			return keyQuery("PK = :pk AND begins_with(SK, :p)", productPK(p.(*Product).ID), inventorySKPrefix)
		},
	},
}

// relationTally is the tally of the relationship items of type rel that point at a parent of type
// parent (a department's employees, a manager's direct reports), read from the inverted GSI1.
func relationTally(parent, attr string, rel RelationType, each func(context.Context, *Repo, func(Entity) error) error, id func(Entity) string) tally {
	return tally{
		parent: parent, attrs: []string{attr},
		project: []string{attrType, "relation", "targetId"},
		of: func(it map[string]types.AttributeValue) (Key, string, bool) {
			target := stringAttr(it, "targetId")
			k := Key{PK: relationTargetPK(rel, target), SK: relationTargetPK(rel, target)}
			return k, attr, stringAttr(it, attrType) == typeRelation && stringAttr(it, "relation") == string(rel)
		},
		each: each,
		collection: func(p Entity) *dynamodb.QueryInput {
			in := keyQuery("GSI1PK = :pk", relationGSI1PK(rel, id(p)), "")
			in.IndexName = aws.String(gsi1)
			return in
		},
		fromIndex: true,
	}
}

// keyQuery is a Query of partition pk with key condition cond (:pk, and :p when prefix is set).
func keyQuery(cond, pk, prefix string) *dynamodb.QueryInput {
	values := map[string]types.AttributeValue{":pk": s(pk)}
	if prefix != "" {
		values[":p"] = s(prefix)
	}
	return &dynamodb.QueryInput{KeyConditionExpression: aws.String(cond), ExpressionAttributeValues: values}
}

func ticketCountAttrs() []string {
	out := make([]string, len(ticketStatuses))
	for i, st := range ticketStatuses {
		out[i] = ticketCountAttr(st)
	}
	return out
}

func orderCountAttrs() []string {
	out := make([]string, len(orderStatuses))
	for i, st := range orderStatuses {
		out[i] = orderCountAttr(st)
	}
	return out
}

// entityFn adapts a function of entities to one of T.
func entityFn[T Entity](fn func(Entity) error) func(T) error {
	return func(v T) error { return fn(v) }
}

// count counts parent's collection by counter: one Query, page after page, of the attributes
// t.of reads. A collection on the table is read consistently; one on an index cannot be.
func (r *Repo) count(ctx context.Context, t tally, parent Entity) (map[string]int, error) {
	in := t.collection(parent)
	in.TableName = aws.String(r.table)
	in.ConsistentRead = aws.Bool(!t.fromIndex)
	names := make([]string, len(t.project))
	in.ExpressionAttributeNames = map[string]string{}
	for i, a := range t.project {
		names[i] = "#p" + strconv.Itoa(i)
		in.ExpressionAttributeNames[names[i]] = a
	}
	in.ProjectionExpression = aws.String(strings.Join(names, ", "))
	k := parent.Key()
	counts := make(map[string]int, len(t.attrs))
	for {
		out, err := r.db.Query(ctx, in)
		if err != nil {
			return nil, apperr.Classify("count", err)
		}
		for _, item := range out.Items {
			if p, attr, ok := t.of(item); ok && p == k {
				counts[attr] += t.add(item)
			}
		}
		if out.LastEvaluatedKey == nil {
			return counts, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// countSample sets the counters of the parents among items from the other items, as -recount
// would set them from the table: the sample data is loaded with exact counters.
func countSample(items []map[string]types.AttributeValue) {
	counts := map[Key]map[string]int{}
	for _, item := range items {
		for _, t := range tallies {
			if k, attr, ok := t.of(item); ok {
				if counts[k] == nil {
					counts[k] = map[string]int{}
				}
				counts[k][attr] += t.add(item)
			}
		}
	}
	for _, item := range items {
		for _, t := range tallies {
			if stringAttr(item, attrType) != t.parent {
				continue
			}
			k := Key{PK: stringAttr(item, attrPK), SK: stringAttr(item, attrSK)}
			for _, a := range t.attrs {
				item[a] = n(counts[k][a])
			}
			item[attrCounted] = &types.AttributeValueMemberBOOL{Value: true}
		}
	}
}
