package repository

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxWarehousesPerProduct bounds the stock items Product.inventory returns: one page of the
// product's partition, all of its stock for any catalog this size.
const MaxWarehousesPerProduct = 100

// ListProducts pages through products by name (AP7: GSI2 TYPE#Product).
func (r *Repo) ListProducts(ctx context.Context, args PageArgs) (Page[*Product], error) {
	return listByType[*Product](ctx, r, typeProduct, args)
}

// ListWarehouses pages through warehouses by name (AP7: GSI2 TYPE#Warehouse).
func (r *Repo) ListWarehouses(ctx context.Context, args PageArgs) (Page[*Warehouse], error) {
	return listByType[*Warehouse](ctx, r, typeWarehouse, args)
}

// InventoryOfProduct reads a product's stock in every warehouse with ONE Query of its partition
// (AP24: PK = PRODUCT#<p> AND begins_with(SK, "INV#")), by warehouse id.
func (r *Repo) InventoryOfProduct(ctx context.Context, product string) (Page[*Inventory], error) {
	if err := checkID("id", product); err != nil {
		return Page[*Inventory]{}, err
	}
	pk := productPK(product)
	return queryPage[*Inventory](ctx, r, pageQuery{
		scope:   join("inventory", pk),
		keyCond: "PK = :pk AND begins_with(SK, :inv)",
		values:  map[string]types.AttributeValue{":pk": s(pk), ":inv": s(inventorySKPrefix)},
	}, PageArgs{First: MaxWarehousesPerProduct})
}

// OrderItemsOfProduct pages through the order lines that name a product, newest first (AP25:
// GSI1 PRODUCT#<p>#ORDERITEMS, read backwards).
func (r *Repo) OrderItemsOfProduct(ctx context.Context, product string, args PageArgs) (Page[*OrderItem], error) {
	if err := checkID("id", product); err != nil {
		return Page[*OrderItem]{}, err
	}
	pk := productOrderItemsPK(product)
	return queryPage[*OrderItem](ctx, r, pageQuery{
		index:      gsi1,
		scope:      join("orderitems", pk),
		keyCond:    "GSI1PK = :pk",
		values:     map[string]types.AttributeValue{":pk": s(pk)},
		descending: true,
	}, args)
}
