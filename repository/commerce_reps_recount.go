package repository

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// Recounting the reps' sales (-recount): the RepSales items are sums over orders kept on write,
// like the counters, but they live in the month's partition rather than on a parent item, so they
// are recounted from the other side: for every employee, its orders on GSI2 (not cancelled) are
// summed by month and each month's item is compared and, where it differs, written on condition
// that it is still what was read (a write of the API in between leaves it for the next run,
// reported busy). The orders come from an index, so the sums are exact when the index lags the
// table by less than the time between the last write and the recount.

// recountRepSales recounts the sales of every rep.
func (r *Repo) recountRepSales(ctx context.Context, rec *recorder) error {
	return eachPage(func(a PageArgs) (Page[*Employee], error) { return r.EmployeesHiredSince(ctx, minHireTime, a) },
		func(e *Employee) error { return r.recountRepOf(ctx, e.ID, rec) })
}

// repSalesOf sums rep's orders that are not cancelled by month, from GSI2.
func (r *Repo) repSalesOf(ctx context.Context, rep string) (map[string]*RepSales, error) {
	items, err := r.queryAll(ctx, &dynamodb.QueryInput{
		TableName: aws.String(r.table), IndexName: aws.String(gsi2),
		KeyConditionExpression:    aws.String("GSI2PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": StringValue(repOrdersPK(rep))},
		ExpressionAttributeNames:  map[string]string{"#status": "status", "#total": "totalCents", "#placed": "placedAt"},
		ProjectionExpression:      aws.String("#status, #total, #placed"),
	})
	if err != nil {
		return nil, err
	}
	sums := map[string]*RepSales{}
	for _, it := range items {
		placed, err := time.Parse(time.RFC3339Nano, StringAttr(it, "placedAt"))
		if err != nil || OrderStatus(StringAttr(it, "status")) == OrderCancelled {
			continue
		}
		m := salesMonth(placed)
		if sums[m] == nil {
			sums[m] = &RepSales{RepID: rep, Month: m}
		}
		sums[m].TotalCents += int64(intAttr(it, "totalCents"))
		sums[m].Orders++
	}
	return sums, nil
}

// recountRepOf compares rep's monthly sales items with the sums of its orders and repairs those
// that differ.
func (r *Repo) recountRepOf(ctx context.Context, rep string, rec *recorder) error {
	sums, err := r.repSalesOf(ctx, rep)
	if err != nil {
		return err
	}
	for _, want := range sums {
		k := want.Key()
		rec.mu.Lock()
		rec.rep.Parents++
		rec.mu.Unlock()
		item, err := r.readOneConsistent(ctx, k)
		if err != nil {
			return err
		}
		// The sales of erased customers' orders are the item's to tell: no order is left to sum.
		want.ErasedCents, want.ErasedOrders = int64(intAttr(item, "erasedCents")), intAttr(item, "erasedOrders")
		want.TotalCents, want.Orders = want.TotalCents+want.ErasedCents, want.Orders+want.ErasedOrders
		total, orders := intAttr(item, "totalCents"), intAttr(item, "orders")
		if item != nil && int64(total) == want.TotalCents && orders == want.Orders {
			continue
		}
		if err := r.putRepSales(ctx, want, item); errors.Is(err, errCountersMoved) {
			rec.mu.Lock()
			rec.rep.Busy = append(rec.rep.Busy, typeRepSales+" "+k.PK+" "+k.SK)
			rec.mu.Unlock()
			continue
		} else if err != nil {
			return err
		}
		name := typeRepSales + " " + k.PK + " " + k.SK
		rec.repaired([]Repair{
			{Parent: name, Counter: "totalCents", Was: wasOf(item, total), Now: int(want.TotalCents), Counted: item != nil},
			{Parent: name, Counter: "orders", Was: wasOf(item, orders), Now: want.Orders, Counted: item != nil},
		})
	}
	return nil
}

// putRepSales writes want if the item is still was (nil: absent); errCountersMoved otherwise.
func (r *Repo) putRepSales(ctx context.Context, want *RepSales, was map[string]types.AttributeValue) error {
	item, err := repSalesEntity.encode(want)
	if err != nil {
		return err
	}
	in := &dynamodb.PutItemInput{TableName: aws.String(r.table), Item: item, ConditionExpression: aws.String("attribute_not_exists(PK)")}
	if was != nil {
		in.ConditionExpression = aws.String("totalCents = :t AND orders = :o AND " + erasedAsRead(was))
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":t": NumberValue(intAttr(was, "totalCents")), ":o": NumberValue(intAttr(was, "orders"))}
		if was["erasedOrders"] != nil {
			in.ExpressionAttributeValues[":e"] = NumberValue(intAttr(was, "erasedOrders"))
		}
	}
	_, err = r.DB.PutItem(ctx, in)
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return errCountersMoved
	}
	if err != nil {
		return apperr.Classify("recount rep sales", err)
	}
	return nil
}

// wasOf is a counter as read, nil for an item that did not exist.
func wasOf(item map[string]types.AttributeValue, v int) *int {
	if item == nil {
		return nil
	}
	return &v
}

// erasedAsRead is the condition that no erasure counted a sale in the item since it was read.
func erasedAsRead(was map[string]types.AttributeValue) string {
	if was["erasedOrders"] == nil {
		return "attribute_not_exists(erasedOrders)"
	}
	return "erasedOrders = :e"
}
