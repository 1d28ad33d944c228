package maintenance

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/hr"
)

// Recounting the reps' sales (-recount): the RepSales items are sums over orders kept on write,
// like the counters, but they live in the month's partition rather than on a parent item, so they
// are recounted from the other side: for every employee, its orders on GSI2 (not cancelled) are
// summed by month and each month's item is compared and, where it differs, written on condition
// that it is still what was read (a write of the API in between leaves it for the next run,
// reported busy). The orders come from an index, so the sums are exact when the index lags the
// table by less than the time between the last write and the recount.

// recountRepSales recounts the sales of every rep.
func (r *Maintenance) recountRepSales(ctx context.Context, rec *recorder) error {
	return repository.EachPage(func(a repository.PageArgs) (repository.Page[*hr.Employee], error) {
		return r.EmployeesHiredSince(ctx, hr.MinHireTime, a)
	},
		func(e *hr.Employee) error { return r.recountRepOf(ctx, e.ID, rec) })
}

// repSalesOf sums rep's orders that are not cancelled by month, from GSI2.
func (r *Maintenance) repSalesOf(ctx context.Context, rep string) (map[string]*commerce.RepSales, error) {
	items, err := r.QueryAll(ctx, &dynamodb.QueryInput{
		TableName: aws.String(r.Table()), IndexName: aws.String(repository.GSI2),
		KeyConditionExpression:    aws.String("GSI2PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": repository.StringValue(commerce.RepOrdersPK(rep))},
		ExpressionAttributeNames:  map[string]string{"#status": "status", "#total": "totalCents", "#placed": "placedAt"},
		ProjectionExpression:      aws.String("#status, #total, #placed"),
	})
	if err != nil {
		return nil, err
	}
	sums := map[string]*commerce.RepSales{}
	for _, it := range items {
		placed, err := time.Parse(time.RFC3339Nano, repository.StringAttr(it, "placedAt"))
		if err != nil || commerce.OrderStatus(repository.StringAttr(it, "status")) == commerce.OrderCancelled {
			continue
		}
		m := commerce.SalesMonth(placed)
		if sums[m] == nil {
			sums[m] = &commerce.RepSales{RepID: rep, Month: m}
		}
		sums[m].TotalCents += int64(repository.IntAttr(it, "totalCents"))
		sums[m].Orders++
	}
	return sums, nil
}

// recountRepOf compares rep's monthly sales items with the sums of its orders and repairs those
// that differ.
func (r *Maintenance) recountRepOf(ctx context.Context, rep string, rec *recorder) error {
	sums, err := r.repSalesOf(ctx, rep)
	if err != nil {
		return err
	}
	for _, want := range sums {
		k := want.Key()
		rec.mu.Lock()
		rec.rep.Parents++
		rec.mu.Unlock()
		item, err := r.ReadOneConsistent(ctx, k)
		if err != nil {
			return err
		}
		// The sales of erased customers' orders are the item's to tell: no order is left to sum.
		want.ErasedCents, want.ErasedOrders = int64(repository.IntAttr(item, "erasedCents")), repository.IntAttr(item, "erasedOrders")
		want.TotalCents, want.Orders = want.TotalCents+want.ErasedCents, want.Orders+want.ErasedOrders
		total, orders := repository.IntAttr(item, "totalCents"), repository.IntAttr(item, "orders")
		if item != nil && int64(total) == want.TotalCents && orders == want.Orders {
			continue
		}
		if err := r.putRepSales(ctx, want, item); errors.Is(err, errCountersMoved) {
			rec.mu.Lock()
			rec.rep.Busy = append(rec.rep.Busy, commerce.TypeRepSales+" "+k.PK+" "+k.SK)
			rec.mu.Unlock()
			continue
		} else if err != nil {
			return err
		}
		name := commerce.TypeRepSales + " " + k.PK + " " + k.SK
		rec.repaired([]Repair{
			{Parent: name, Counter: "totalCents", Was: wasOf(item, total), Now: int(want.TotalCents), Counted: item != nil},
			{Parent: name, Counter: "orders", Was: wasOf(item, orders), Now: want.Orders, Counted: item != nil},
		})
	}
	return nil
}

// putRepSales writes want if the item is still was (nil: absent); errCountersMoved otherwise.
func (r *Maintenance) putRepSales(ctx context.Context, want *commerce.RepSales, was map[string]types.AttributeValue) error {
	item, err := commerce.RepSalesEntity.Encode(want)
	if err != nil {
		return err
	}
	in := &dynamodb.PutItemInput{TableName: aws.String(r.Table()), Item: item, ConditionExpression: aws.String("attribute_not_exists(PK)")}
	if was != nil {
		in.ConditionExpression = aws.String("totalCents = :t AND orders = :o AND " + erasedAsRead(was))
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":t": repository.NumberValue(repository.IntAttr(was, "totalCents")), ":o": repository.NumberValue(repository.IntAttr(was, "orders"))}
		if was["erasedOrders"] != nil {
			in.ExpressionAttributeValues[":e"] = repository.NumberValue(repository.IntAttr(was, "erasedOrders"))
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
