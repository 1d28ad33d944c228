package commerce

import (
	"time"

	"singletable/repository"
	"singletable/repository/hr"
)

// Account reps. A customer may have an account rep (an employee): the customer item carries the
// rep's id and, on GSI1, sits in the rep's partition of accounts (AP26). An order placed while the
// customer has a rep carries it too, and sits in the rep's partition of orders on GSI2, by order
// id, so by time (AP27). Every such order adds its total to the rep's sales of its month, an item
// per rep and month in the month's own partition (AP28), in the order's transaction; cancelling
// the order takes it off again in the cancellation's. A ranking over a range of months is then
// one Query per month, however many orders there were.

// RepSales is one rep's sales of one month (yyyy-mm, UTC): the orders placed for its customers
// that month and not cancelled, and their total.
type RepSales struct {
	RepID      string `dynamodbav:"repId"`
	Month      string `dynamodbav:"month"`
	TotalCents int64  `dynamodbav:"totalCents"`
	Orders     int    `dynamodbav:"orders"`
	// ErasedCents and ErasedOrders are the part of TotalCents and Orders whose orders went with
	// their erased customer (repErasedSales): a recount adds them to the orders it sums.
	ErasedCents  int64 `dynamodbav:"erasedCents,omitempty"`
	ErasedOrders int   `dynamodbav:"erasedOrders,omitempty"`
}

// Key implements Entity.
func (s *RepSales) Key() repository.Key { return RepSalesEntity.Key(s) }

// RepSalesEntity is the definition of the RepSales item: in its month's partition, one per rep.
var RepSalesEntity = repository.Define(repository.EntityDef[RepSales, *RepSales]{
	Name:     TypeRepSales,
	Key:      func(s *RepSales) repository.Key { return repSalesKey(s.Month, s.RepID) },
	Examples: func() []*RepSales { return []*RepSales{{RepID: "<employeeId>", Month: "<yyyy-mm>"}} },
})

// --- Keys: customers and orders by rep, sales per rep and month ---

// TypeRepSales is a rep's sales of one month.
const TypeRepSales = "RepSales"

// repAccountsPK is a rep's customers on GSI1 (AP26), sorted by name like the customers' list.
func repAccountsPK(e string) string { return repository.Join("EMP", e, "ACCOUNTS") }

// RepOrdersPK is the orders a rep handled on GSI2 (AP27), sorted by order id, so by time.
func RepOrdersPK(e string) string { return repository.Join("EMP", e, "ORDERS") }

// repSalesPK is the partition of every rep's sales of one month (yyyy-mm, UTC): one Query per
// month answers a ranking over a range of months (AP28).
func repSalesPK(month string) string { return repository.Join("REPSALES", month) }

func repSalesKey(month, e string) repository.Key {
	return repository.Key{PK: repSalesPK(month), SK: hr.EmpPK(e)}
}

// SalesMonth is the month (UTC) an order placed at t counts toward.
func SalesMonth(t time.Time) string { return t.UTC().Format("2006-01") }
