package commerce

import (
	"context"
	"errors"

	"singletable/apperr"
	"singletable/repository"
)

// CancelOrderPlan is what CancelOrder does (explain plans the mutation from it).
var CancelOrderPlan = repository.WritePlan{Calls: []repository.WriteCall{
	repository.ConsistentRead("PK = CUST#<c>, SK = ORDER#<o>"),
	{Operation: "BatchGetItem", Calls: 1, What: "PK = CUST#<c>, SK = ORDER#<o>#ITEM#<nnn>, consistent: only for an order whose lines took stock"},
	repository.TransactCall("Update ORDER#<o> to CANCELLED if OPEN and the customer's counters; give each stocked line back to PRODUCT#<p> INV#<w> and the product's totalInventory; take it off the rep's REPSALES#<yyyy-mm>"),
}}

// CancelOrder cancels an OPEN order and gives back the stock its lines took. The order is read
// consistently (a missing order is NOT_FOUND, one that is no longer OPEN CONFLICT naming its
// status), and the lines of an order that took stock by key, then ONE TransactWriteItems moves
// the order to CANCELLED
// (conditioned on OPEN, so of two concurrent cancellations one wins and the other is CONFLICT and
// gives nothing back), moves it between its customer's counters, and adds every stocked line's
// quantity back to its Inventory item and its product's totalInventory, and takes the order off
// its account rep's sales of its month.
func (r *Commerce) CancelOrder(ctx context.Context, customer, order string) (*Order, error) {
	o, err := r.readOrder(ctx, customer, order)
	if err != nil {
		return nil, err
	}
	if o.Status != OrderOpen {
		return nil, refusedTransition(o.Status, OrderOpen, OrderCancelled)
	}
	return r.cancelOpenOrder(ctx, o)
}

// cancelOpenOrder is the cancellation of an order read OPEN: cancelOrder's, and the erasure of its
// customer's for each of its open orders, so that the two undo the same.
func (r *Commerce) cancelOpenOrder(ctx context.Context, o *Order) (*Order, error) {
	items, err := r.stockedLines(ctx, o)
	if err != nil {
		return nil, err
	}
	next, tx, err := r.moveOrder(o, OrderCancelled)
	if err != nil {
		return nil, err
	}
	tx = append(tx, r.take(stockOf(items), +1)...)
	tx = append(tx, r.repSales(o, -1)...)
	if err := r.Transact(ctx, "cancel order", tx); err != nil {
		return nil, err
	}
	return next, nil
}

// stockedLines are the lines of an order that took stock, read consistently by key; none (and no
// read) for an order none of whose lines did.
func (r *Commerce) stockedLines(ctx context.Context, o *Order) ([]*OrderItem, error) {
	if !o.Stocked {
		return nil, nil
	}
	found, err := r.ReadConsistent(ctx, o.ItemKeys()...)
	if err != nil {
		return nil, err
	}
	items := make([]*OrderItem, 0, len(found))
	for _, e := range found {
		if it, ok := e.(*OrderItem); ok {
			items = append(items, it)
		}
	}
	return items, nil
}

// readOrder reads an order consistently by its key, for a write that conditions on what it read:
// BAD_USER_INPUT for ids that are not an order's, NOT_FOUND for a missing order.
func (r *Commerce) readOrder(ctx context.Context, customer, order string) (*Order, error) {
	if err := checkOrderID(customer, order); err != nil {
		return nil, err
	}
	k := OrderKeyOf(customer, order)
	found, err := r.ReadConsistent(ctx, k)
	if err != nil {
		return nil, err
	}
	o, ok := repository.FoundAs[*Order](found, k)
	if !ok {
		return nil, apperr.NotFound("order")
	}
	return o, nil
}

// checkOrderID refuses ids that are not an order's with BAD_USER_INPUT.
func checkOrderID(customer, order string) error {
	if err := errors.Join(repository.CheckID("id", customer), repository.CheckID("id", order)); err != nil {
		return apperr.InvalidInput("id", "id is not a valid order id")
	}
	return nil
}
