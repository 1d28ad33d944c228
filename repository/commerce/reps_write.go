package commerce

import (
	"context"
	"errors"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/hr"
)

// CustomerOf reads a customer consistently: NOT_FOUND when it is missing.
func (r *Commerce) CustomerOf(ctx context.Context, customer string) (*Customer, error) {
	k := CustomerKeyOf(customer)
	found, err := r.ReadConsistent(ctx, k)
	if err != nil {
		return nil, err
	}
	c, ok := repository.FoundAs[*Customer](found, k)
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
func repAsRead(rep string) *repository.Condition {
	if rep == "" {
		return &repository.Condition{Expr: "attribute_not_exists(#rep)", Names: map[string]string{"#rep": AttrAccountRep}, Err: errRepMoved()}
	}
	return &repository.Condition{Expr: "#rep = :rep", Names: map[string]string{"#rep": AttrAccountRep},
		Values: map[string]types.AttributeValue{":rep": repository.StringValue(rep)}, Err: errRepMoved()}
}

const AttrAccountRep = "accountRepId"

// repSales is the change an order makes to its rep's sales of its month: sign +1 when placed, -1
// when cancelled; nothing for an order without a rep. The ADD creates the item on the month's
// first order.
func (r *Commerce) repSales(o *Order, sign int) []repository.TxItem {
	if o.AccountRepID == "" {
		return nil
	}
	return []repository.TxItem{r.addRepSales(o, "totalCents", "orders", sign)}
}

// repErasedSales is what erasing a shipped or delivered order of a rep's customer writes: the sale
// happened, so the rep's sales of its month keep it (totalCents and orders do not move), and the
// month's erasedCents and erasedOrders count it, so that a recount, which sums the rep's orders,
// adds the sales whose orders are gone. Nothing for another order (an open one is cancelled
// first, a cancelled one is off the rep's sales already) or one without a rep.
func (r *Commerce) repErasedSales(o *Order) []repository.TxItem {
	if o.AccountRepID == "" || (o.Status != OrderShipped && o.Status != OrderDelivered) {
		return nil
	}
	return []repository.TxItem{r.addRepSales(o, "erasedCents", "erasedOrders", 1)}
}

// addRepSales adds sign times o's total and one order to the attributes cents and orders of the
// sales item of o's rep and month, creating the item if it is the month's first.
func (r *Commerce) addRepSales(o *Order, cents, orders string, sign int) repository.TxItem {
	month := SalesMonth(o.PlacedAt)
	return repository.TxItem{Item: types.TransactWriteItem{Update: &types.Update{
		TableName:                aws.String(r.Table()),
		Key:                      repSalesKey(month, o.AccountRepID).Attributes(),
		UpdateExpression:         aws.String("ADD " + cents + " :total, " + orders + " :one SET repId = :rep, #month = :month, #type = :type"),
		ExpressionAttributeNames: map[string]string{"#month": "month", "#type": repository.AttrType},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":total": &types.AttributeValueMemberN{Value: strconv.FormatInt(int64(sign)*o.TotalCents, 10)},
			":one":   repository.NumberValue(sign), ":rep": repository.StringValue(o.AccountRepID), ":month": repository.StringValue(month), ":type": repository.StringValue(TypeRepSales),
		},
	}}}
}

// AssignAccountRepPlan is what AssignAccountRep does (explain plans the mutation from it).
var AssignAccountRepPlan = repository.WritePlan{Calls: []repository.WriteCall{
	repository.ConsistentRead("PK = CUST#<c>, SK = PROFILE"),
	repository.TransactCall("Update CUST#<c> PROFILE (account rep, GSI1 EMP#<e>#ACCOUNTS) if its name is as read; check EMP#<e> exists"),
}}

// AssignAccountRep makes employee the account rep of customer: the customer item takes the rep's
// id and moves into the rep's partition of accounts on GSI1 (AP26), in ONE TransactWriteItems with
// a check that the employee exists. The customer is read first (consistently) for the name its
// index sort key carries; the write is conditioned on that name, so a rename in between is
// CONFLICT rather than a stale sort key. Orders placed from now on count for the new rep; those
// placed before stay with the rep they were placed under.
func (r *Commerce) AssignAccountRep(ctx context.Context, customer, employee string) (*Customer, error) {
	if err := repository.CheckID("employeeId", employee); err != nil {
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
			":rep": repository.StringValue(employee), ":pk": repository.StringValue(repAccountsPK(employee)), ":sk": repository.StringValue(repository.NameSortKey(c.Name, c.ID)), ":name": repository.StringValue(c.Name),
		}, apperr.Errorf(apperr.CodeConflict, "the customer changed meanwhile; retry"))
	err = r.Transact(ctx, "assign account rep", []repository.TxItem{update, repository.UnlessMarked(r.MustExist(hr.EmpKey(employee), repository.NotFoundField("employeeId", "employee")), repository.NotFoundField("employeeId", "employee"))})
	if err != nil {
		return nil, err
	}
	return &next, nil
}

// errRepReassigned: the customer got another account rep (or was erased) since the sweep read it.
var errRepReassigned = apperr.Errorf(apperr.CodeConflict, "the customer's account rep changed meanwhile")

// unassignAccountsOf takes employee off the customers it is the account rep of (AP26's partition),
// each in an update conditioned on its rep being still the employee, so that an assignment of
// another rep in between wins.
func (r *Commerce) unassignAccountsOf(ctx context.Context, employee string) error {
	accounts, err := r.QueryAll(ctx, AccountsOfRep.Input(r.Table(), repAccountsPK(employee)))
	if err != nil {
		return err
	}
	for _, item := range accounts {
		err := r.Transact(ctx, "unassign removed account rep", []repository.TxItem{r.TxUpdate(CustomerKeyOf(repository.StringAttr(item, "id")),
			"REMOVE #rep, GSI1PK, GSI1SK", "attribute_exists(PK) AND #rep = :rep", map[string]string{"#rep": AttrAccountRep},
			map[string]types.AttributeValue{":rep": repository.StringValue(employee)}, errRepReassigned)})
		if err != nil && !errors.Is(err, errRepReassigned) {
			return err
		}
	}
	return nil
}
