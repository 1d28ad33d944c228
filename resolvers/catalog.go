package resolvers

import (
	"context"
	"fmt"

	"singletable/apperr"
	"singletable/auth"
	"singletable/graph/model"
	"singletable/loaders"
	"singletable/planner"
	"singletable/repository"
)

// mayRead refuses a field that auth's fieldPolicy narrows below the scope of its object (a
// product's stock for a customer): FORBIDDEN, as a root field the caller may not use.
func mayRead(ctx context.Context, object, field string) error {
	if !auth.Caller(ctx).MayRead(object, field) {
		return apperr.Errorf(apperr.CodeForbidden, "%s.%s is not available to this caller", object, field)
	}
	return nil
}

// narrowed is read unless the caller may not read object.field (mayRead).
func narrowed[T any](ctx context.Context, object, field string, read func() (T, error)) (T, error) {
	if err := mayRead(ctx, object, field); err != nil {
		var zero T
		return zero, err
	}
	return read()
}

// startProductLists binds the product's child lists to their loaders, for the callers who may
// read them (nothing is read ahead for the others).
func startProductLists(ctx context.Context, l *loaders.Loaders, parents [][]string, u *planner.ListUse) {
	if mayRead(ctx, u.Field.Type, u.Field.Name) != nil {
		return
	}
	if u.Field == planner.ProductInventory {
		l.StartInventories(ctx, parentIDs(parents), levelOf(u.Nodes))
		return
	}
	l.StartOrderItemsOfProducts(ctx, parentIDs(parents), u.Args.Page(), levelOf(u.Nodes))
}

// inventories is a product's stock per warehouse, as GraphQL objects.
func inventories(ctx context.Context, product string) ([]*model.Inventory, error) {
	return narrowed(ctx, "Product", "inventory", func() ([]*model.Inventory, error) {
		p, err := loaders.For(ctx).InventoryOf(ctx, product, nodes(ctx))
		if err != nil {
			return nil, err
		}
		out := make([]*model.Inventory, len(p.Items))
		for i, inv := range p.Items {
			out[i] = &model.Inventory{Inventory: inv}
		}
		return out, nil
	})
}

// productOrderItems is a page of a product's order lines, newest first.
func productOrderItems(ctx context.Context, product string, args repository.PageArgs) (*model.OrderItemConnection, error) {
	return narrowed(ctx, "Product", "orderItems", func() (*model.OrderItemConnection, error) {
		return connection(orderItemConnection)(loaders.For(ctx).OrderItemsOfProduct(ctx, product, args, nodes(ctx)))
	})
}

// productOrNil is the product an order line names, nil for a free-text line.
func productOrNil(ctx context.Context, id string) (*model.Product, error) {
	if id == "" {
		return nil, nil
	}
	return model.Products.Load(ctx, loaders.For(ctx), id)
}

// warehouseOrNil is the warehouse an order line's stock came from, nil for a free-text line.
func warehouseOrNil(ctx context.Context, id string) (*model.Warehouse, error) {
	if id == "" {
		return nil, nil
	}
	return model.Warehouses.Load(ctx, loaders.For(ctx), id)
}

// placeOrder decodes the product and warehouse IDs of the order's lines and places it. A line's
// product is checked against the caller's scope like any ID; its warehouse only for its type: a
// customer may take stock from any warehouse, whose IDs are not a tenant's.
func placeOrder(ctx context.Context, repo *repository.Repo, customer string, input model.PlaceOrderInput) (*repository.Order, []*repository.OrderItem, error) {
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
	return repo.PlaceOrder(ctx, customer, lines, input.IdempotencyKey)
}
