package commerce

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// Order states. An order is placed OPEN and moves OPEN → SHIPPED → DELIVERED, or OPEN → CANCELLED.
const (
	OrderOpen      OrderStatus = "OPEN"
	OrderShipped   OrderStatus = "SHIPPED"
	OrderDelivered OrderStatus = "DELIVERED"
	OrderCancelled OrderStatus = "CANCELLED"
)

// cleanOrderLines checks the lines of an order and returns them trimmed, with the order total.
func cleanOrderLines(lines []OrderLine) ([]OrderLine, int64, error) {
	if len(lines) == 0 {
		return nil, 0, apperr.InvalidInput("items", "an order needs at least one item")
	}
	if len(lines) > repository.MaxOrderLines {
		return nil, 0, apperr.InvalidInput("items", "an order has at most %d items (lines): it is written in one transaction of at most %d writes, 3 of which are the customer check, the idempotency guard and the order",
			repository.MaxOrderLines, repository.MaxTransactItems)
	}
	out := make([]OrderLine, len(lines))
	var total int64
	for i, l := range lines {
		field := fmt.Sprintf("items[%d]", i)
		var err error
		if l.SKU, err = repository.CleanText(field+".sku", l.SKU, 1, repository.MaxSKULen, false); err != nil {
			return nil, 0, err
		}
		if l.ProductName, err = repository.CleanText(field+".productName", l.ProductName, 1, repository.MaxNameLen, false); err != nil {
			return nil, 0, err
		}
		if l.Quantity < 1 || l.Quantity > repository.MaxLineQuantity {
			return nil, 0, apperr.InvalidInput(field+".quantity", "quantity must be between 1 and %d", repository.MaxLineQuantity)
		}
		if err := checkStockLine(field, l); err != nil {
			return nil, 0, err
		}
		if l.UnitPriceCents < 0 || l.UnitPriceCents > repository.MaxUnitPriceCents {
			return nil, 0, apperr.InvalidInput(field+".unitPriceCents", "unitPriceCents must be between 0 and %d", int64(repository.MaxUnitPriceCents))
		}
		// Both factors are bounded, so neither the product nor the sum of at most MaxOrderLines
		// of them can overflow int64; the total is then held to what the API can return.
		total += int64(l.Quantity) * l.UnitPriceCents
		if total > repository.MaxOrderTotalCents {
			return nil, 0, apperr.InvalidInput("items", "the order total must be at most %d cents", int64(repository.MaxOrderTotalCents))
		}
		out[i] = l
	}
	return out, total, nil
}

// orderRequestHash identifies what a placeOrder request asks for (customer and cleaned lines), so
// that a retry with the same idempotency key is recognised and a different request is not.
func orderRequestHash(customer string, lines []OrderLine) string {
	b, _ := json.Marshal(struct {
		Customer string
		Lines    []OrderLine
	}{customer, lines})
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// placeOrderToken is the ClientRequestToken of a placeOrder transaction: a hash of the customer
// and the idempotency key (at most 36 characters, as DynamoDB requires).
func placeOrderToken(customer, key string) string {
	sum := sha256.Sum256([]byte(customer + "\x00" + key))
	return base64.RawURLEncoding.EncodeToString(sum[:27])
}

// errReplay carries the idempotency guard a placeOrder found in its way.
type errReplay struct {
	guard map[string]types.AttributeValue
}

func (e *errReplay) Error() string { return "idempotency key already used" }

// PlaceOrderPlan is what PlaceOrder does: a read of the customer (its account rep), one
// transaction, and for an idempotency key used before, the Queries that find the order it placed.
var PlaceOrderPlan = repository.WritePlan{Calls: []repository.WriteCall{
	repository.ConsistentRead("PK = CUST#<c>, SK = PROFILE: its account rep"),
	repository.TransactCall("Put ORDER#<o>, its lines and the idempotency guard if absent; count it on the customer if its account rep is as read, and on the rep's REPSALES#<yyyy-mm>; take each stocked line from PRODUCT#<p> INV#<w> if it holds enough, and from the product's totalInventory"),
	{Operation: "Query", Calls: 2, What: "the idempotency guard, then PK = CUST#<c> AND begins_with(SK, ORDER#<o>), consistent: only for a key used before"},
}}

// PlaceOrder places an OPEN order with its lines for a customer, in ONE TransactWriteItems:
// an Update of the customer's count of open orders (only if the customer exists), a Put of the
// idempotency guard (only if absent), a Put of the order and a Put per line. Placing it again with the same idempotency key returns the
// order the key placed, and stores nothing, however late the retry comes:
//
//   - the transaction's ClientRequestToken, a hash of (customer, key), makes DynamoDB itself
//     accept a repeat of the identical call for ten minutes (the SDK's retry after a lost
//     response) without writing twice;
//   - a client's retry is a new call with a new order id, so DynamoDB answers it with
//     IdempotentParameterMismatchException within those ten minutes, and after them the guard's
//     condition fails: either way the guard, read consistently, names the order already placed.
//     If the guard's request hash differs, the key was used for another order: CONFLICT.
//
// It returns the order and its items (to prime them: they were just written, and an eventually
// consistent read right after could miss them).
func (r *Commerce) PlaceOrder(ctx context.Context, customer string, lines []OrderLine, idempotencyKey string) (*Order, []*OrderItem, error) {
	return r.placeOrder(ctx, customer, lines, idempotencyKey, placeOrderToken(customer, idempotencyKey))
}

// placeOrder is PlaceOrder with the ClientRequestToken given; tests pass another token (or none)
// to reach the path a retry takes after DynamoDB's ten-minute window.
func (r *Commerce) placeOrder(ctx context.Context, customer string, lines []OrderLine, idempotencyKey, token string) (*Order, []*OrderItem, error) {
	o, items, _, err := r.placeOrderFull(ctx, customer, lines, idempotencyKey, token)
	return o, items, err
}

// PlaceOrderWithCustomer is PlaceOrder that also returns the customer as the order left it (its
// counters moved), read consistently before the write: nil when the key placed an order before.
func (r *Commerce) PlaceOrderWithCustomer(ctx context.Context, customer string, lines []OrderLine, idempotencyKey string) (*Order, []*OrderItem, *Customer, error) {
	return r.placeOrderFull(ctx, customer, lines, idempotencyKey, placeOrderToken(customer, idempotencyKey))
}

// placeOrderFull checks the request, reads the customer (consistently: its account rep, which the
// order counts for, see reps_model.go; a missing customer is NOT_FOUND) and writes the order's
// transaction (orderWrites).
func (r *Commerce) placeOrderFull(ctx context.Context, customer string, lines []OrderLine, idempotencyKey, token string) (*Order, []*OrderItem, *Customer, error) {
	if err := repository.CheckID("customerId", customer); err != nil {
		return nil, nil, nil, err
	}
	key, err := repository.CleanText("idempotencyKey", idempotencyKey, 1, repository.MaxIdempotencyKeyLen, false)
	if err != nil {
		return nil, nil, nil, err
	}
	lines, total, err := cleanOrderLines(lines)
	if err != nil {
		return nil, nil, nil, err
	}
	c, err := r.CustomerOf(ctx, customer)
	if err != nil {
		return nil, nil, nil, err
	}
	hash := orderRequestHash(customer, lines)
	id, now, err := r.NewEntityID()
	if err != nil {
		return nil, nil, nil, err
	}
	o := &Order{ID: id, CustomerID: customer, Status: OrderOpen, PlacedAt: now, UpdatedAt: now, TotalCents: total, ItemCount: len(lines),
		IdempotencyKey: key, AccountRepID: c.AccountRepID}
	tx, items, err := r.orderWrites(o, lines, hash)
	if err != nil {
		return nil, nil, nil, err
	}
	err = r.TransactWithToken(ctx, "place order", token, tx)
	var (
		replay   *errReplay
		mismatch *types.IdempotentParameterMismatchException
	)
	switch {
	case err == nil:
		c.OpenOrders++
		return o, items, c, nil
	case errors.As(err, &replay):
		o, items, err := r.replayOrder(ctx, customer, key, replay.guard, hash)
		return o, items, nil, err
	case errors.As(err, &mismatch):
		guard, err := r.ReadOneConsistent(ctx, orderIdempotencyKey(customer, key))
		if err != nil {
			return nil, nil, nil, err
		}
		o, items, err := r.replayOrder(ctx, customer, key, guard, hash)
		return o, items, nil, err
	}
	return nil, nil, nil, err
}

// orderWrites is the transaction that places order o with its lines: the customer's count of open
// orders (only if the customer and its account rep are as read), the idempotency guard (only if
// absent), the order, a Put per line, the stock its lines take and its rep's sales of the month.
func (r *Commerce) orderWrites(o *Order, lines []OrderLine, hash string) ([]repository.TxItem, []*OrderItem, error) {
	items := make([]*OrderItem, len(lines))
	for i, l := range lines {
		items[i] = &OrderItem{CustomerID: o.CustomerID, OrderID: o.ID, Line: i + 1, SKU: l.SKU, ProductName: l.ProductName, Quantity: l.Quantity, UnitPriceCents: l.UnitPriceCents,
			ProductID: l.ProductID, WarehouseID: l.WarehouseID}
	}
	stock := stockOf(items)
	o.Stocked = len(stock.byStock) > 0
	oi, err := orderEntity.EncodeSharded(o, r.Shards)
	if err != nil {
		return nil, nil, err
	}
	tx := []repository.TxItem{
		r.TxCount(CustomerKeyOf(o.CustomerID), []repository.Delta{{Attr: orderCountAttr(OrderOpen), By: 1}}, apperr.NotFound("customer"), repository.NotErased(repAsRead(o.AccountRepID))),
		r.PutNewOrOld(idempotencyGuardItem(o, hash), func(old map[string]types.AttributeValue) error { return &errReplay{guard: old} }),
		r.PutNew(oi, apperr.Errorf(apperr.CodeConflict, "order already exists")),
	}
	for _, it := range items {
		item, err := orderItemEntity.Encode(it)
		if err != nil {
			return nil, nil, err
		}
		tx = append(tx, r.PutNew(item, apperr.Errorf(apperr.CodeConflict, "order item already exists")))
	}
	tx = append(tx, r.take(stock, -1)...)
	tx = append(tx, r.repSales(o, +1)...)
	if len(tx) > repository.MaxTransactItems {
		return nil, nil, orderTooLarge(lines, len(tx), len(tx)-len(lines)-len(stock.byProduct)-len(stock.byStock))
	}
	return tx, items, nil
}

// orderTooLarge is the BAD_USER_INPUT of an order whose transaction would need writes (more than
// one transaction allows), fixed of them the customer's count, the idempotency guard, the order
// and the rep's month: it names the real bound (a line that takes stock also writes its stock
// item and, once per product, the product's total) and how many of the lines, from the first,
// fit (extensions.count).
func orderTooLarge(lines []OrderLine, writes, fixed int) error {
	fit, used := 0, fixed
	products, stocks := map[string]bool{}, map[string]bool{}
	for _, l := range lines {
		cost := 1
		if l.ProductID != "" && l.WarehouseID != "" {
			cost += boolInt(!products[l.ProductID]) + boolInt(!stocks[l.ProductID+"/"+l.WarehouseID])
		}
		if used+cost > repository.MaxTransactItems {
			break
		}
		used, fit = used+cost, fit+1
		if l.ProductID != "" && l.WarehouseID != "" {
			products[l.ProductID], stocks[l.ProductID+"/"+l.WarehouseID] = true, true
		}
	}
	return &apperr.Error{Code: apperr.CodeBadUserInput, Field: "items", Limit: "orderWrites", Count: &fit,
		Message: fmt.Sprintf("this order needs %d writes and one order is written in one transaction of at most %d: %d for the customer, the idempotency guard, the order and the rep's month, one per line, and for a line that takes stock one more for its stock item and one for its product's total (once per product); the first %d of these lines fit",
			writes, repository.MaxTransactItems, fixed, fit)}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// replayOrder answers a placeOrder whose idempotency key is already taken: the stored order if
// the request is the same, CONFLICT if the key placed a different order.
func (r *Commerce) replayOrder(ctx context.Context, customer, key string, guardItem map[string]types.AttributeValue, hash string) (*Order, []*OrderItem, error) {
	if guardItem == nil {
		// The token was seen but its transaction left no guard: it is still in flight.
		return nil, nil, &apperr.Error{Code: apperr.CodeConflict, Field: "idempotencyKey", Message: "an order with this idempotencyKey is being placed; retry"}
	}
	var g idempotencyGuard
	g.OrderID, g.RequestHash = repository.StringAttr(guardItem, "orderId"), repository.StringAttr(guardItem, "requestHash")
	if g.RequestHash != hash {
		return nil, nil, &apperr.Error{Code: apperr.CodeConflict, Field: "idempotencyKey", Message: "this idempotencyKey was already used for a different order"}
	}
	o, items, err := r.orderWithItems(ctx, customer, g.OrderID)
	if err != nil {
		return nil, nil, err
	}
	if o.IdempotencyKey != key {
		return nil, nil, apperr.Internal("replay order", fmt.Errorf("guard of key %q names order %s of key %q", key, o.ID, o.IdempotencyKey))
	}
	return o, items, nil
}

// orderWithItems reads an order and its items with ONE strongly consistent Query of the order's
// part of the customer's collection (AP17: PK=CUST#<c>, begins_with(SK, ORDER#<o>)).
func (r *Commerce) orderWithItems(ctx context.Context, customer, order string) (*Order, []*OrderItem, error) {
	raw, err := r.QueryAll(ctx, &dynamodb.QueryInput{
		TableName:              aws.String(r.Table()),
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :order)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": repository.StringValue(customerPK(customer)), ":order": repository.StringValue(orderSK(order)),
		},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, nil, err
	}
	var o *Order
	var items []*OrderItem
	for _, item := range raw {
		e, err := repository.DecodeEntity(item)
		if err != nil {
			return nil, nil, err
		}
		switch v := e.(type) {
		case *Order:
			o = v
		case *OrderItem:
			items = append(items, v)
		}
	}
	if o == nil {
		return nil, nil, apperr.Internal("read order", fmt.Errorf("order %s of customer %s not found", order, customer))
	}
	return o, items, nil
}

// UpdateOrderStatusPlan is what UpdateOrderStatus does; to CANCELLED it is CancelOrder.
var UpdateOrderStatusPlan = repository.WritePlan{Calls: []repository.WriteCall{
	repository.ConsistentRead("PK = CUST#<c>, SK = ORDER#<o>"),
	{Operation: "BatchGetItem", Calls: 1, What: "PK = CUST#<c>, SK = ORDER#<o>#ITEM#<nnn>, consistent: only when cancelling an order whose lines took stock"},
	repository.TransactCall("Update CUST#<c> ORDER#<o> if its status is as read; move the customer's counts (cancelling: as cancelOrder)"),
}}

// UpdateOrderStatus moves an order to another status: allowed are OPEN→SHIPPED, SHIPPED→DELIVERED
// and OPEN→CANCELLED, so the one status the target may be reached from is known. The order is read
// (consistently: a missing order is NOT_FOUND, a refused transition CONFLICT naming the current
// status, with nothing written) and then changed in ONE TransactWriteItems: the Update of the
// order, conditioned on that status, which also rewrites the status-bearing index keys, GSI1SK
// (<status>#<o>) and GSI3PK (ORDERSTATUS#<status>#<shard>), so the order moves between the
// customer's status range and between status shards atomically; and the move of the order between
// the customer's counters. Of two concurrent changes from one status, one wins and the other is
// CONFLICT naming the status the winner set (read from the item as it was, ALL_OLD).
func (r *Commerce) UpdateOrderStatus(ctx context.Context, customer, order string, to OrderStatus) (*Order, error) {
	if err := checkOrderID(customer, order); err != nil {
		return nil, err
	}
	if !to.valid() {
		return nil, apperr.InvalidInput("status", "unknown order status")
	}
	if to == OrderCancelled {
		// Cancelling gives the order's stock back: the one way of cancelling is CancelOrder's.
		return r.CancelOrder(ctx, customer, order)
	}
	o, err := r.readOrder(ctx, customer, order)
	if err != nil {
		return nil, err
	}
	from := orderStatusFrom[to] // "" for OPEN: no status may become OPEN
	if o.Status != from {
		return nil, refusedTransition(o.Status, from, to)
	}
	next, tx, err := r.moveOrder(o, to)
	if err != nil {
		return nil, err
	}
	if err := r.Transact(ctx, "update order status", tx); err != nil {
		return nil, err
	}
	return next, nil
}

// moveOrder is the part of a status change's transaction every change has: the Update of the order,
// conditioned on the status it was read with, which also rewrites the status-bearing index keys,
// and the move of the order between the customer's counters. It returns the order as it will be.
func (r *Commerce) moveOrder(o *Order, to OrderStatus) (*Order, []repository.TxItem, error) {
	from := o.Status
	next := *o
	next.Status, next.UpdatedAt = to, r.Stamp()
	now, err := attributevalue.Marshal(next.UpdatedAt)
	if err != nil {
		return nil, nil, apperr.Internal("update order status", err)
	}
	k := OrderKeyOf(o.CustomerID, o.ID)
	update := r.TxUpdate(k, "SET #status = :to, GSI1SK = :gsi1sk, GSI3PK = :gsi3pk, updatedAt = :now", "#status = :from",
		map[string]string{"#status": "status"},
		map[string]types.AttributeValue{
			":to": repository.StringValue(string(to)), ":from": repository.StringValue(string(from)), ":now": now,
			":gsi1sk": repository.StringValue(orderStatusGSI1SK(to, o.ID)),
			":gsi3pk": repository.StringValue(orderStatusShardPK(to, orderStatusShard(o.ID, r.Shards))),
		}, nil)
	update.Item.Update.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	update.OnConditionOld = func(old map[string]types.AttributeValue) error {
		return refusedTransition(OrderStatus(repository.StringAttr(old, "status")), orderStatusFrom[to], to)
	}
	return &next, []repository.TxItem{update,
		r.TxCount(CustomerKeyOf(o.CustomerID), repository.Moved(orderCountAttr(from), orderCountAttr(to)),
			apperr.Internal("update order status", fmt.Errorf("the customer of order %s is missing", o.ID)), nil),
	}, nil
}

// refusedTransition is the CONFLICT of an order that is current, which only from may leave for to.
func refusedTransition(current, from, to OrderStatus) error {
	if from == "" {
		return &apperr.Error{Code: apperr.CodeConflict, Field: "status", Message: fmt.Sprintf("the order is %s; an order never returns to %s", current, to)}
	}
	return &apperr.Error{Code: apperr.CodeConflict, Field: "status", Message: fmt.Sprintf("the order is %s; only %s orders can become %s", current, from, to)}
}

// CreateCustomerPlan is what CreateCustomer does.
var CreateCustomerPlan = repository.OneTransaction("Put CUST#<c> PROFILE and its email guard if absent")

// AddMailingAddressPlan is what AddMailingAddress does.
var AddMailingAddressPlan = repository.WritePlan{Calls: []repository.WriteCall{{Operation: "UpdateItem", Calls: 1, What: "PK = CUST#<c>, SK = PROFILE if it has fewer than 20 addresses"}}}
