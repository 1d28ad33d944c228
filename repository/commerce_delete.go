package repository

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// Erasing a customer: its profile (with its addresses), its orders and their items (and so their
// entries in the order status index, GSI1 and GSI3, which are the same items), the idempotency
// guards of its orders and its email guard. When everything fits one transaction, that is the
// whole erasure, conditioned on the customer's order counters and every order's status being as
// read. Otherwise its orders go first, in transactions of as many orders as fit, each moving the
// customer's counters, and the customer last, on condition that its counters are zero: an order
// placed meanwhile makes that fail, and the next round removes it.

// errCustomerHasOrders: an order of the customer appeared or changed, or its email changed,
// between the read and the transaction.
var errCustomerHasOrders = errors.New("the customer's orders changed")

// DeleteCustomerPlan is what DeleteCustomer does (explain plans the mutation from it).
var DeleteCustomerPlan = WritePlan{Attempts: MaxRemovalRounds, Calls: []WriteCall{
	consistentRead("PK = CUST#<c>, SK = PROFILE"),
	{Operation: "Query", Calls: 1, PerData: true, What: "PK = CUST#<c> AND begins_with(SK, ORDER#), consistent, one per 1 MB"},
	perDataCall("TransactWriteItems", "Delete ORDER# items, their lines and idempotency guards, as many orders as fit one transaction; update the counters"),
	transactCall("Delete CUST#<c> PROFILE if its counters and email are as read, its email guard (with the orders, when all fit)"),
}}

// DeleteCustomer erases a customer (see above).
func (r *Repo) DeleteCustomer(ctx context.Context, id string) error {
	if err := checkID("id", id); err != nil {
		return err
	}
	for range MaxRemovalRounds {
		c, err := readLive[*Customer](ctx, r, customerKey(id), apperr.NotFound("customer"))
		if err != nil {
			return err
		}
		raw, err := r.queryAll(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(r.table),
			KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :o)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(customerPK(id)), ":o": s(orderSKPrefix)},
			ConsistentRead:            aws.Bool(true),
		})
		if err != nil {
			return err
		}
		err = r.eraseRound(ctx, c, raw)
		if !errors.Is(err, errCustomerHasOrders) {
			return err
		}
	}
	return &apperr.Error{Code: apperr.CodeConflict, Message: "orders kept being placed for the customer while it was erased; retry"}
}

// eraseRound writes one round of an erasure from the customer c and its order and order item
// items raw: the whole erasure if it fits, else the removal of the first orders that fit
// (errCustomerHasOrders then asks for another round). An order's room is counted from the items
// read (its lines sort right after it), not from its itemCount: the largest order (MaxOrderLines
// lines, its idempotency guard) fits exactly one transaction with the customer's counter update.
func (r *Repo) eraseRound(ctx context.Context, c *Customer, raw []map[string]types.AttributeValue) error {
	groups, err := r.orderRemovals(c, raw)
	if err != nil {
		return err
	}
	var items []txItem
	moves := map[string]int{}
	whole := true
	for _, g := range groups {
		if len(items)+len(g.items)+1 > maxTransactItems { // +1: the counter update of a partial round
			whole = false // this order and its items wait for the next round
			break
		}
		items = append(items, g.items...)
		if g.order != nil {
			moves[orderCountAttr(g.order.Status)]--
		}
	}
	if whole && len(items)+len(r.eraseProfile(c)) <= maxTransactItems {
		return r.transact(ctx, "delete customer", append(items, r.eraseProfile(c)...))
	}
	var ds []delta
	for attr, by := range moves {
		ds = append(ds, delta{attr, by})
	}
	if err := r.transact(ctx, "delete customer orders", append(items, r.txCount(customerKey(c.ID), ds, apperr.NotFound("customer"), nil))); err != nil {
		return err
	}
	return errCustomerHasOrders
}

// orderGroup is the removal of one order read: its Delete, its lines' and its idempotency
// guard's (order is nil for lines read without their order, each its own group).
type orderGroup struct {
	order *Order
	items []txItem
}

// orderRemovals groups the items read (an order, then its lines) into the removals of orders.
func (r *Repo) orderRemovals(c *Customer, raw []map[string]types.AttributeValue) ([]orderGroup, error) {
	var groups []orderGroup
	for _, item := range raw {
		if stringAttr(item, attrType) != typeOrder {
			del := r.deleteIf(Key{PK: stringAttr(item, attrPK), SK: stringAttr(item, attrSK)}, "", nil, nil)
			if len(groups) == 0 {
				groups = append(groups, orderGroup{})
			}
			last := &groups[len(groups)-1]
			last.items = append(last.items, del)
			continue
		}
		o, err := decodeAs[*Order](item)
		if err != nil {
			return nil, err
		}
		g := orderGroup{order: o, items: []txItem{r.orderRemoval(o)}}
		if o.IdempotencyKey != "" {
			g.items = append(g.items, r.deleteIf(orderIdempotencyKey(c.ID, o.IdempotencyKey), "", nil, nil))
		}
		groups = append(groups, g)
	}
	return groups, nil
}

// eraseProfile is the removal of the customer's own item, on condition that its order counters
// and email are as read (no order placed or changed since, the guard it removes is its email's),
// and of its email guard.
func (r *Repo) eraseProfile(c *Customer) []txItem {
	cond := "attribute_exists(PK) AND email = :email"
	values := map[string]types.AttributeValue{":email": s(c.Email)}
	for _, st := range []OrderStatus{OrderOpen, OrderShipped, OrderDelivered, OrderCancelled} {
		a, v := orderCountAttr(st), ":"+orderCountAttr(st)
		values[v] = n(c.orderCount(st))
		cond += " AND (attribute_not_exists(" + a + ") OR " + a + " = " + v + ")"
	}
	return []txItem{
		r.deleteIf(customerKey(c.ID), cond, values, errCustomerHasOrders),
		r.deleteIf(customerEmailGuardKey(c.Email), "", nil, nil),
	}
}

// orderRemoval is the Delete of order o, on condition that its status is the one read.
func (r *Repo) orderRemoval(o *Order) txItem {
	it := r.deleteIf(o.Key(), "#st = :st", map[string]types.AttributeValue{":st": s(string(o.Status))}, errCustomerHasOrders)
	it.item.Delete.ExpressionAttributeNames = map[string]string{"#st": "status"}
	return it
}
