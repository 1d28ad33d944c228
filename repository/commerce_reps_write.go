package repository

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// customerOf reads a customer consistently: NOT_FOUND when it is missing.
func (r *Repo) CustomerOf(ctx context.Context, customer string) (*Customer, error) {
	k := CustomerKeyOf(customer)
	found, err := r.ReadConsistent(ctx, k)
	if err != nil {
		return nil, err
	}
	c, ok := FoundAs[*Customer](found, k)
	if !ok {
		return nil, apperr.NotFound("customer")
	}
	return c, nil
}

// errRepMoved is the CONFLICT of an order whose customer changed account rep while it was placed.
func errRepMoved() *apperr.Error {
	return apperr.Errorf(apperr.CodeConflict, "the customer's account rep changed meanwhile; retry")
}

// repAsRead is the condition that a customer's account rep is still rep ("" for none).
func repAsRead(rep string) *Condition {
	if rep == "" {
		return &Condition{Expr: "attribute_not_exists(#rep)", names: map[string]string{"#rep": AttrAccountRep}, err: errRepMoved()}
	}
	return &Condition{Expr: "#rep = :rep", names: map[string]string{"#rep": AttrAccountRep},
		values: map[string]types.AttributeValue{":rep": StringValue(rep)}, err: errRepMoved()}
}

const AttrAccountRep = "accountRepId"

// repSales is the change an order makes to its rep's sales of its month: sign +1 when placed, -1
// when cancelled; nothing for an order without a rep. The ADD creates the item on the month's
// first order.
func (r *Repo) repSales(o *Order, sign int) []TxItem {
	if o.AccountRepID == "" {
		return nil
	}
	return []TxItem{r.addRepSales(o, "totalCents", "orders", sign)}
}

// repErasedSales is what erasing a shipped or delivered order of a rep's customer writes: the sale
// happened, so the rep's sales of its month keep it (totalCents and orders do not move), and the
// month's erasedCents and erasedOrders count it, so that a recount, which sums the rep's orders,
// adds the sales whose orders are gone. Nothing for another order (an open one is cancelled
// first, a cancelled one is off the rep's sales already) or one without a rep.
func (r *Repo) repErasedSales(o *Order) []TxItem {
	if o.AccountRepID == "" || (o.Status != OrderShipped && o.Status != OrderDelivered) {
		return nil
	}
	return []TxItem{r.addRepSales(o, "erasedCents", "erasedOrders", 1)}
}

// addRepSales adds sign times o's total and one order to the attributes cents and orders of the
// sales item of o's rep and month, creating the item if it is the month's first.
func (r *Repo) addRepSales(o *Order, cents, orders string, sign int) TxItem {
	month := SalesMonth(o.PlacedAt)
	return TxItem{item: types.TransactWriteItem{Update: &types.Update{
		TableName:                aws.String(r.Table()),
		Key:                      repSalesKey(month, o.AccountRepID).Attributes(),
		UpdateExpression:         aws.String("ADD " + cents + " :total, " + orders + " :one SET repId = :rep, #month = :month, #type = :type"),
		ExpressionAttributeNames: map[string]string{"#month": "month", "#type": AttrType},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":total": &types.AttributeValueMemberN{Value: strconv.FormatInt(int64(sign)*o.TotalCents, 10)},
			":one":   NumberValue(sign), ":rep": StringValue(o.AccountRepID), ":month": StringValue(month), ":type": StringValue(TypeRepSales),
		},
	}}}
}

// AssignAccountRepPlan is what AssignAccountRep does (explain plans the mutation from it).
var AssignAccountRepPlan = WritePlan{Calls: []WriteCall{
	consistentRead("PK = CUST#<c>, SK = PROFILE"),
	transactCall("Update CUST#<c> PROFILE (account rep, GSI1 EMP#<e>#ACCOUNTS) if its name is as read; check EMP#<e> exists"),
}}

// AssignAccountRep makes employee the account rep of customer: the customer item takes the rep's
// id and moves into the rep's partition of accounts on GSI1 (AP26), in ONE TransactWriteItems with
// a check that the employee exists. The customer is read first (consistently) for the name its
// index sort key carries; the write is conditioned on that name, so a rename in between is
// CONFLICT rather than a stale sort key. Orders placed from now on count for the new rep; those
// placed before stay with the rep they were placed under.
func (r *Repo) AssignAccountRep(ctx context.Context, customer, employee string) (*Customer, error) {
	if err := checkID("employeeId", employee); err != nil {
		return nil, err
	}
	c, err := r.CustomerOf(ctx, customer)
	if err != nil {
		return nil, err
	}
	next := *c
	next.AccountRepID = employee
	update := r.TxUpdate(CustomerKeyOf(customer), "SET #rep = :rep, GSI1PK = :pk, GSI1SK = :sk", "attribute_exists(PK) AND #name = :name",
		map[string]string{"#rep": AttrAccountRep, "#name": "name"},
		map[string]types.AttributeValue{
			":rep": StringValue(employee), ":pk": StringValue(repAccountsPK(employee)), ":sk": StringValue(NameSortKey(c.Name, c.ID)), ":name": StringValue(c.Name),
		}, apperr.Errorf(apperr.CodeConflict, "the customer changed meanwhile; retry"))
	err = r.Transact(ctx, "assign account rep", []TxItem{update, unlessMarked(r.mustExist(EmpKey(employee), notFoundField("employeeId", "employee")), notFoundField("employeeId", "employee"))})
	if err != nil {
		return nil, err
	}
	return &next, nil
}
