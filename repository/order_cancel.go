package repository

import (
	"context"
	"errors"

	"singletable/apperr"
)

// CancelOrder cancels an OPEN order and gives back the stock its lines took. The order and its
// items are read with one consistent Query (a missing order is NOT_FOUND, one that is no longer
// OPEN CONFLICT naming its status), then ONE TransactWriteItems moves the order to CANCELLED
// (conditioned on OPEN, so of two concurrent cancellations one wins and the other is CONFLICT and
// gives nothing back), moves it between its customer's counters, and adds every stocked line's
// quantity back to its Inventory item and its product's totalInventory.
func (r *Repo) CancelOrder(ctx context.Context, customer, order string) (*Order, error) {
	if err := errors.Join(checkID("id", customer), checkID("id", order)); err != nil {
		return nil, apperr.InvalidInput("id", "id is not a valid order id")
	}
	o, items, err := r.orderAndItems(ctx, customer, order)
	if err != nil {
		return nil, err
	}
	if o == nil {
		return nil, apperr.NotFound("order")
	}
	if o.Status != OrderOpen {
		return nil, refusedTransition(o.Status, OrderOpen, OrderCancelled)
	}
	next, tx, err := r.moveOrder(o, OrderCancelled)
	if err != nil {
		return nil, err
	}
	tx = append(tx, r.take(stockOf(items), +1)...)
	if err := r.transact(ctx, "cancel order", tx); err != nil {
		return nil, err
	}
	return next, nil
}
