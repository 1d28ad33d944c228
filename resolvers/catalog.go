package resolvers

import (
	"context"
	"fmt"
	"time"

	"singletable/apperr"
	"singletable/auth"
	"singletable/graph/model"
	"singletable/loaders"
	"singletable/planner"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/store"
)

// startProductLists binds the product's child lists to their loaders.
func startProductLists(ctx context.Context, l *loaders.Loaders, parents [][]string, u *planner.ListUse) {
	if u.Field == planner.ProductInventory {
		l.StartInventories(ctx, parentIDs(parents), levelOf(u.Nodes))
		return
	}
	l.StartOrderItemsOfProducts(ctx, parentIDs(parents), u.Args.Page(), levelOf(u.Nodes))
}

// inventories is a product's stock per warehouse, as GraphQL objects: the page read with the
// product, or its own Query (AP24).
func inventories(ctx context.Context, product *model.Product) ([]*model.Inventory, error) {
	p, ok := readWith(ctx, product.InventoryAhead, product.InventoryAheadFor)
	if !ok {
		var err error
		if p, err = loaders.For(ctx).InventoryOf(ctx, product.ID, nodes(ctx)); err != nil {
			return nil, err
		}
	}
	out := make([]*model.Inventory, len(p.Items))
	for i, inv := range p.Items {
		out[i] = &model.Inventory{Inventory: inv}
	}
	return out, nil
}

// productOrderItems is a page of a product's order lines, newest first.
func productOrderItems(ctx context.Context, product string, args repository.PageArgs) (*model.OrderItemConnection, error) {
	return connection(orderItemConnection)(loaders.For(ctx).OrderItemsOfProduct(ctx, product, args, nodes(ctx)))
}

// productOrNil is the product an order line names, nil for a free-text line.
func productOrNil(ctx context.Context, id string) (*model.Product, error) {
	if id == "" {
		return nil, nil
	}
	return toOne(ctx, model.Products, id)
}

// warehouseOrNil is the warehouse an order line's stock came from, nil for a free-text line.
func warehouseOrNil(ctx context.Context, id string) (*model.Warehouse, error) {
	if id == "" {
		return nil, nil
	}
	return toOne(ctx, model.Warehouses, id)
}

// placeOrder decodes the product and warehouse IDs of the order's lines and places it, and hands
// the customer the write read to the loaders (the order's customer costs nothing). A line's
// product is checked against the caller's scope like any ID; its warehouse only for its type: a
// customer may take stock from any warehouse, whose IDs are not a tenant's.
func placeOrder(ctx context.Context, repo *store.Store, customer string, input model.PlaceOrderInput) (*commerce.Order, []*commerce.OrderItem, error) {
	lines := orderLines(input.Items)
	for i, it := range input.Items {
		if it.ProductID == nil && it.WarehouseID == nil {
			continue
		}
		field := fmt.Sprintf("items[%d]", i)
		if it.ProductID == nil || it.WarehouseID == nil {
			return nil, nil, apperr.InvalidInput(field, "a line names both a productId and a warehouseId, or neither")
		}
		product, err := model.Products.Input(ctx, loaders.For(ctx), field+".productId", *it.ProductID, "")
		if err != nil {
			return nil, nil, err
		}
		parts, err := model.Warehouses.Decode(field+".warehouseId", *it.WarehouseID)
		if err != nil {
			return nil, nil, err
		}
		lines[i].ProductID, lines[i].WarehouseID = product, parts[0]
	}
	o, items, c, err := repo.PlaceOrderWithCustomer(ctx, customer, lines, input.IdempotencyKey)
	if c != nil { // read before the write, its counters moved with it: the result's customer
		loaders.For(ctx).Remember(ctx, c)
	}
	return o, items, err
}

// accountRep is a customer's account rep, nil when it has none.
func accountRep(ctx context.Context, id string) (*model.Employee, error) {
	if id == "" {
		return nil, nil
	}
	return toOne(ctx, model.Employees, id)
}

// topAccountReps is the ranking of account reps (one Query per month, AP28). The entries name
// their reps, which are looked up together at once, as the level the rep field's selection plans
// (its to-one targets, its lists read ahead): never one by one as each entry resolves.
func topAccountReps(ctx context.Context, repo *store.Store, from, to time.Time, first *int) ([]*model.AccountRepSales, error) {
	n := 10
	if first != nil {
		n = *first
	}
	ctx = repository.NextRound(ctx) // the root field's reads are its round 1
	totals, err := repo.TopAccountReps(ctx, from, to, n)
	if err != nil {
		return nil, err
	}
	out := make([]*model.AccountRepSales, len(totals))
	keys := make([]repository.Key, 0, len(totals))
	for i, t := range totals {
		out[i] = &model.AccountRepSales{RepTotal: t}
		if k, err := hr.EmployeeKey(t.RepID); err == nil {
			keys = append(keys, k)
		}
	}
	reps := planner.Nodes(ctx).TargetsOf("rep")
	if len(reps) > 0 && auth.Caller(ctx).MayRead("AccountRepSales", "rep") {
		levels := make([]loaders.Level, 0, len(reps))
		for _, lv := range reps {
			levels = append(levels, levelOf(lv))
		}
		loaders.For(ctx).FetchLevel(ctx, keys, levels...)
	}
	return out, nil
}

// repID is the employee ID of an account rep given in a mutation's input: decoded for its type
// only, since sales, who assign reps, see employees as reps though not HR's scope (a missing one
// is NOT_FOUND from the write).
func repID(id string) inputID[string] {
	return inputID[string]{field: "employeeId", id: id, input: func(_ context.Context, _ model.KeyReader, field, id, _ string) (string, error) {
		parts, err := model.Employees.Decode(field, id)
		if err != nil {
			return "", err
		}
		return parts[0], nil
	}}
}
