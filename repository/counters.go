package repository

import (
	"maps"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Counters: the size of a collection, kept on its parent's item, an aggregate updated with the change.
//
// Counting a collection when a list is asked for its totalCount would read the whole collection:
// a Query that returns a million tickets to say "a million". Instead each parent item carries a
// counter per collection it heads, one per status where the list filters by status:
//
//	Organization  userCount                                            its users (AP3)
//	User          openTickets, pendingTickets, closedTickets           its tickets (AP5)
//	Department    employeeCount                                        its employees (AP9)
//	Employee      directReportCount                                    its direct reports (AP11)
//	              menteeCount                                          its mentees
//	Customer      openOrders, shippedOrders, deliveredOrders,          its orders (AP16)
//	              cancelledOrders
//	Product       totalInventory (a sum of quantities)                 its stock (AP24)
//
// and, outside any parent, each account rep's sales of a month (RepSales: totalCents, orders,
// repository/maintenance/recount_reps.go).
//
// Every write that adds to a collection, or moves one of its items from a status to another,
// changes the counters with an ADD in the SAME TransactWriteItems as the change itself (TxCount),
// and under the conditions the write had already: the Update of the counters replaces the
// ConditionCheck that the parent exists. Either both happen or neither: a transaction cancelled
// by a failed condition or a conflicting transaction changes no counter, and one the SDK retries
// after throttling carries the same ClientRequestToken, so it is applied once. A status change is
// conditioned on the status it read (a ticket's version, an order's status), so two concurrent
// changes of one item never both move it.
//
// Items written before counters existed have none, and an ADD on them would count from zero only
// what came after. So a counted parent also carries `counted`: true from its creation (counters at
// zero) or from the -recount that set them from its collection (repository/maintenance/recount.go). Without it the item
// reports no count (totalCount is null) while its writes go on adding to attributes nobody reads,
// until -recount replaces them. No write ever fails for a missing counter: an ADD creates it.
const AttrCounted = "counted"

// Count is the size of a collection as its parent's counters say. Known is false when they cannot
// say: the parent was written before counters existed and -recount has not run since, or the list
// is narrowed in a way no counter follows (a time range).
type Count struct {
	N     int
	Known bool
}

func CountIf(counted bool, n int) Count { return Count{N: n, Known: counted} }

// FilteredTotal is a counted list's total under its filter: unknown with a time range (no counter
// follows one), the status's counter with a status, all of them without.
func FilteredTotal[S any](counted, ranged bool, status *S, byStatus func(S) int, all int) Count {
	switch {
	case ranged:
		return Count{}
	case status != nil:
		return CountIf(counted, byStatus(*status))
	}
	return CountIf(counted, all)
}

// Delta adds by to the counter attribute attr.
type Delta struct {
	Attr string
	By   int
}

// Moved is the deltas of an item of a counted collection moving from one counter to another (a
// status change, a transfer between the counters of one parent): none when from is to.
func Moved(from, to string) []Delta {
	if from == to {
		return nil
	}
	return []Delta{{from, -1}, {to, +1}}
}

// Condition is a further condition on an item a transaction writes, and the error to report when
// it fails.
type Condition struct {
	Expr   string
	Names  map[string]string
	Values map[string]types.AttributeValue
	Err    error
}

// TxCount is a parent's part of a write's transaction: it adds deltas to the parent's counters,
// on condition that the parent exists (else onMissing) and meets also (when given; else also.err).
// It takes the place of the ConditionCheck that the parent exists, since one transaction may touch
// an item only once; with no deltas it is that ConditionCheck.
func (r *Repo) TxCount(k Key, deltas []Delta, onMissing error, also *Condition) TxItem {
	cond := "attribute_exists(PK)"
	names, values := map[string]string{}, map[string]types.AttributeValue{}
	var onCond error
	if also != nil {
		cond += " AND (" + also.Expr + ")"
		maps.Copy(names, also.Names)
		maps.Copy(values, also.Values)
		onCond = also.Err
	}
	parts := make([]string, len(deltas))
	for i, d := range deltas {
		name, value := "#c"+strconv.Itoa(i), ":c"+strconv.Itoa(i)
		names[name], values[value] = d.Attr, NumberValue(d.By)
		parts[i] = name + " " + value
	}
	if len(names) == 0 { // DynamoDB refuses empty maps of names and values
		names, values = nil, nil
	}
	var it TxItem
	if len(deltas) == 0 {
		it = r.TxCheck(k, cond, names, values, nil)
		it.Item.ConditionCheck.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	} else {
		it = r.TxUpdate(k, "ADD "+strings.Join(parts, ", "), cond, names, values, nil)
		it.Item.Update.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	it.OnConditionOld = func(old map[string]types.AttributeValue) error {
		if _, marked := old[AttrDeleting]; len(old) == 0 || marked {
			return onMissing // a parent being removed answers as a missing one
		}
		return onCond
	}
	return it
}
