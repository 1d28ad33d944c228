package commerce

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/hr"
)

// Erasing a customer undoes what its writes did elsewhere. Its profile is marked first, in one
// transaction with a sweep record: from then on it reads as missing, and placeOrder and
// addMailingAddress refuse it (their conditions), so a client that keeps placing orders cannot
// keep the erasure from finishing. The sweep (run at once, and by the sweeper when the request
// is cut short) then cancels each OPEN order exactly as cancelOrder does (its stocked lines' units
// back to their inventory and their product's total, the order off its rep's sales of its month,
// the customer's counters moved), and deletes the orders with their items (and so their entries
// in the order status index) and idempotency guards, as many as fit a transaction. A shipped or
// delivered order stays counted in its rep's sales and its units stay taken: that sale happened;
// only the customer's data goes. The profile (with its addresses, leaving its rep's accounts with
// it), its email guard and the record go last, on condition that the counters are as read.

// errCustomerHasOrders: an order of the customer appeared or changed, or its email changed,
// between the read and the transaction.
var errCustomerHasOrders = errors.New("the customer's orders changed")

// DeleteCustomerPlan is what DeleteCustomer does (explain plans the mutation from it).
var DeleteCustomerPlan = repository.WritePlan{Attempts: repository.MaxSweepRounds, Calls: []repository.WriteCall{
	repository.TransactCall("Update CUST#<c> PROFILE (mark, leave GSI1 and GSI2) if it exists and is not being erased; Put SWEEP CUSTOMER#<c>"),
	{Operation: "Query", Calls: 1, What: "PK = CUST#<c>, SK = PROFILE, consistent (a Query: the mark hides it from BatchGetItem)"},
	{Operation: "Query", Calls: 1, PerData: true, What: "PK = CUST#<c> AND begins_with(SK, ORDER#), consistent, one per 1 MB"},
	repository.PerDataCall("BatchGetItem", "PK = CUST#<c>, SK = ORDER#<o>#ITEM#<nnn>, consistent: the stocked lines of each OPEN order"),
	repository.PerDataCall("TransactWriteItems", "Cancel each OPEN order as cancelOrder does: stock back, the rep's REPSALES#<yyyy-mm> down, counters moved"),
	repository.PerDataCall("TransactWriteItems", "Delete ORDER# items, their lines and idempotency guards, as many orders as fit one transaction; update the counters"),
	repository.TransactCall("Delete CUST#<c> PROFILE if marked with its counters and email as read, its email guard, the SWEEP record (with the orders, when all fit)"),
}}

// sweepCustomer is the kind of sweep of a customer marked as being erased, with its orders.
const sweepCustomer = "CUSTOMER"

// The sweep of a customer finishes here; the sweep of an employee takes it off the customers it
// was the account rep of.
var (
	_ = repository.DeclareSweep(sweepCustomer, func(ctx context.Context, r *repository.Repo, rec *repository.SweepRecord) error {
		return (&Commerce{Repo: r}).sweepCustomerRecord(ctx, rec)
	})
	_ = repository.AlsoSweep(hr.SweepEmployee, func(ctx context.Context, r *repository.Repo, rec *repository.SweepRecord) error {
		return (&Commerce{Repo: r}).unassignAccountsOf(ctx, rec.Employee)
	})
)

// DeleteCustomer erases a customer (see above). The erasure is done when it returns; if its
// sweep fails midway, the customer is gone for every reader already and the sweeper finishes it.
func (r *Commerce) DeleteCustomer(ctx context.Context, id string) error {
	if err := repository.CheckID("id", id); err != nil {
		return err
	}
	return r.MarkAndSweep(ctx, "delete customer", &repository.SweepRecord{Kind: sweepCustomer, Customer: id}, true,
		r.Mark(CustomerKeyOf(id), "GSI1PK, GSI1SK, GSI2PK, GSI2SK", apperr.NotFound("customer")))
}

// sweepCustomerRecord erases a marked customer, round after round (each reads its profile and
// orders again), until it is gone or MaxSweepRounds have not sufficed. A customer that is there
// without the mark is not the one the record was written for: only the record goes.
func (r *Commerce) sweepCustomerRecord(ctx context.Context, rec *repository.SweepRecord) error {
	for round := range repository.MaxSweepRounds {
		if err := r.SweepRound(ctx, round); err != nil {
			return err
		}
		item, err := r.ReadOneConsistent(ctx, CustomerKeyOf(rec.Customer))
		if err != nil {
			return err
		}
		if item == nil || item[repository.AttrDeleting] == nil {
			return r.Transact(ctx, "sweep", []repository.TxItem{r.DropSweep(rec)})
		}
		c, err := repository.DecodeAs[*Customer](item)
		if err != nil {
			return err
		}
		raw, err := r.QueryAll(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(r.Table()),
			KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :o)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": repository.StringValue(customerPK(c.ID)), ":o": repository.StringValue(orderSKPrefix)},
			ConsistentRead:            aws.Bool(true),
		})
		if err != nil {
			return err
		}
		more, err := r.eraseCustomerRound(ctx, rec, c, raw)
		if !more {
			return err
		}
	}
	return fmt.Errorf("erasure of customer %s: %w", rec.Customer, repository.ErrSweepUnfinished)
}

// eraseCustomerRound cancels the OPEN orders read, as cancelOrder does; once none is open it
// writes one round of the removal (eraseRound). more asks for another round: orders were
// cancelled or removed, or one changed meanwhile.
func (r *Commerce) eraseCustomerRound(ctx context.Context, rec *repository.SweepRecord, c *Customer, raw []map[string]types.AttributeValue) (more bool, err error) {
	groups, err := r.orderRemovals(c, raw)
	if err != nil {
		return false, err
	}
	for _, g := range groups {
		if g.order == nil || g.order.Status != OrderOpen {
			continue
		}
		if _, err := r.cancelOpenOrder(ctx, g.order); err != nil && !repository.IsConflict(err) {
			return false, err
		}
		more = true
	}
	if more {
		return true, nil
	}
	err = r.eraseRound(ctx, rec, c, groups)
	if errors.Is(err, errCustomerHasOrders) || repository.IsConflict(err) {
		return true, nil
	}
	return false, err
}

// eraseRound writes one round of an erasure of the customer c, none of whose orders (groups) is
// open: the whole erasure if it fits, else the removal of the first orders that fit
// (errCustomerHasOrders then asks for another round). An order's room is counted from the items
// read (its lines sort right after it), not from its itemCount: the largest order (MaxOrderLines
// lines, its idempotency guard, its rep's erased sales) fits exactly one transaction.
func (r *Commerce) eraseRound(ctx context.Context, rec *repository.SweepRecord, c *Customer, groups []orderGroup) error {
	var items []repository.TxItem
	whole := true
	for _, g := range groups {
		if len(items)+len(g.items) > repository.MaxTransactItems {
			whole = false // this order and its items wait for the next round
			break
		}
		items = append(items, g.items...)
	}
	if profile := r.eraseProfile(rec, c); whole && len(items)+len(profile) <= repository.MaxTransactItems {
		return r.Transact(ctx, "delete customer", append(items, profile...))
	}
	// The marked customer's counters are no one's to read any more: a partial round leaves them,
	// and the profile goes on condition that they are as the last round read them.
	if err := r.Transact(ctx, "delete customer orders", items); err != nil {
		return err
	}
	return errCustomerHasOrders
}

// orderGroup is the removal of one order read: its Delete, its lines' and its idempotency
// guard's (order is nil for lines read without their order, each its own group).
type orderGroup struct {
	order *Order
	items []repository.TxItem
}

// orderRemovals groups the items read (an order, then its lines) into the removals of orders.
func (r *Commerce) orderRemovals(c *Customer, raw []map[string]types.AttributeValue) ([]orderGroup, error) {
	var groups []orderGroup
	for _, item := range raw {
		if repository.StringAttr(item, repository.AttrType) != TypeOrder {
			del := r.DeleteIf(repository.Key{PK: repository.StringAttr(item, repository.AttrPK), SK: repository.StringAttr(item, repository.AttrSK)}, "", nil, nil)
			if len(groups) == 0 {
				groups = append(groups, orderGroup{})
			}
			last := &groups[len(groups)-1]
			last.items = append(last.items, del)
			continue
		}
		o, err := repository.DecodeAs[*Order](item)
		if err != nil {
			return nil, err
		}
		g := orderGroup{order: o, items: []repository.TxItem{r.orderRemoval(o)}}
		if o.IdempotencyKey != "" {
			g.items = append(g.items, r.DeleteIf(orderIdempotencyKey(c.ID, o.IdempotencyKey), "", nil, nil))
		}
		g.items = append(g.items, r.repErasedSales(o)...)
		groups = append(groups, g)
	}
	return groups, nil
}

// eraseProfile is the removal of the customer's own item, on condition that it carries the mark
// and its order counters and email are as read (no order changed since, the guard it removes is
// its email's), of its email guard, and of the sweep record.
func (r *Commerce) eraseProfile(rec *repository.SweepRecord, c *Customer) []repository.TxItem {
	cond := "attribute_exists(" + repository.AttrDeleting + ") AND email = :email"
	values := map[string]types.AttributeValue{":email": repository.StringValue(c.Email)}
	for _, st := range []OrderStatus{OrderOpen, OrderShipped, OrderDelivered, OrderCancelled} {
		a, v := orderCountAttr(st), ":"+orderCountAttr(st)
		values[v] = repository.NumberValue(c.orderCount(st))
		cond += " AND (attribute_not_exists(" + a + ") OR " + a + " = " + v + ")"
	}
	return []repository.TxItem{
		r.DeleteIf(CustomerKeyOf(c.ID), cond, values, errCustomerHasOrders),
		r.DeleteIf(customerEmailGuardKey(c.Email), "", nil, nil),
		r.DropSweep(rec),
	}
}

// orderRemoval is the Delete of order o, on condition that its status is the one read.
func (r *Commerce) orderRemoval(o *Order) repository.TxItem {
	it := r.DeleteIf(o.Key(), "#st = :st", map[string]types.AttributeValue{":st": repository.StringValue(string(o.Status))}, errCustomerHasOrders)
	it.Item.Delete.ExpressionAttributeNames = map[string]string{"#st": "status"}
	return it
}
