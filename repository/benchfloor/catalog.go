package benchfloor

import (
	"context"
	"errors"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
	"singletable/repository/commerce"
)

// CatalogTree reads products → orderItems(first items) → order → customer. Three dependent
// rounds, each as wide as it can be:
//
//  1. the products (BatchGetItem) and, at the same time, each product's order lines on GSI1,
//     newest first (one Query per product, AP25): both need only the ids;
//  2. the orders the lines belong to;
//  3. the orders' customers not read yet.
func CatalogTree(ctx context.Context, c *Client, products []string, items int) (Result, error) {
	f := newFloorReader(c)
	x := f.raw
	keys := make([]repository.Key, len(products))
	pks := make([]string, len(products))
	for i, p := range products {
		keys[i], pks[i] = x.ProductKey(p), x.ProductOrderItemsPK(p)
	}
	lines, err := f.keysAndPartitions(ctx, keys, pks, items, true)
	if err != nil {
		return Result{}, err
	}
	res := Result{Parents: len(products)}
	var orders []repository.Key
	for _, list := range lines {
		for _, e := range list {
			if it, ok := e.(*commerce.OrderItem); ok {
				res.Children++
				orders = append(orders, x.OrderKey(it.CustomerID, it.OrderID))
			}
		}
	}
	if err := f.batchGet(ctx, f.missing(orders)); err != nil {
		return res, err
	}
	var customers []repository.Key
	for _, k := range orders {
		if o, ok := f.known(k); ok {
			res.Leaves++
			customers = append(customers, x.CustomerKey(o.(*commerce.Order).CustomerID))
		}
	}
	if err := f.batchGet(ctx, f.missing(customers)); err != nil {
		return res, err
	}
	for _, k := range customers {
		if _, ok := f.known(k); ok {
			res.Refs++
		}
	}
	return res, nil
}

// keysAndPartitions is the first round of a tree whose parents' lists live on GSI1: the parents
// by key (one BatchGetItem) and, at the same time, one Query of the GSI1 partition of each
// parent's list, at most limit items, newest first if asked. Both need only the ids, so neither
// waits for the other.
func (f *floorReader) keysAndPartitions(ctx context.Context, keys []repository.Key, pks []string, limit int, newestFirst bool) ([][]repository.Entity, error) {
	x := f.raw
	lists := make([][]repository.Entity, len(pks))
	errs := make([]error, len(pks)+1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		errs[len(pks)] = f.batchGet(ctx, keys)
	}()
	for i, pk := range pks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[i], errs[i] = f.query(ctx, &dynamodb.QueryInput{
				IndexName:                 aws.String(x.GSI1()),
				KeyConditionExpression:    aws.String("GSI1PK = :pk"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":pk": x.S(pk)},
				ScanIndexForward:          aws.Bool(!newestFirst),
				Limit:                     aws.Int32(int32(limit)),
			})
		}()
	}
	wg.Wait()
	return lists, errors.Join(errs...)
}
