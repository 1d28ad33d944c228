package repository

import (
	"context"
)

// MaxWarehousesPerProduct bounds the stock items Product.inventory returns: one page of the
// product's partition, all of its stock for any catalog this size.
const MaxWarehousesPerProduct = 100

// ListProducts pages through products by name (AP7: GSI2 TYPE#Product).
func (r *Repo) ListProducts(ctx context.Context, args PageArgs) (Page[*Product], error) {
	return listByType[*Product](ctx, r, ProductsByName, args)
}

// ListWarehouses pages through warehouses by name (AP7: GSI2 TYPE#Warehouse).
func (r *Repo) ListWarehouses(ctx context.Context, args PageArgs) (Page[*Warehouse], error) {
	return listByType[*Warehouse](ctx, r, WarehousesByName, args)
}

// InventoryOfProduct reads a product's stock in every warehouse with ONE Query of its partition
// (AP24: PK = PRODUCT#<p> AND begins_with(SK, "INV#")), by warehouse id.
func (r *Repo) InventoryOfProduct(ctx context.Context, product string) (Page[*Inventory], error) {
	if err := checkID("id", product); err != nil {
		return Page[*Inventory]{}, err
	}
	pk := productPK(product)
	return queryPage[*Inventory](ctx, r, InventoryOfProduct.query(join("inventory", pk), pk, inventorySKPrefix), PageArgs{First: MaxWarehousesPerProduct})
}

// OrderItemsOfProduct pages through the order lines that name a product, newest first (AP25:
// GSI1 PRODUCT#<p>#ORDERITEMS, read backwards).
func (r *Repo) OrderItemsOfProduct(ctx context.Context, product string, args PageArgs) (Page[*OrderItem], error) {
	if err := checkID("id", product); err != nil {
		return Page[*OrderItem]{}, err
	}
	pk := productOrderItemsPK(product)
	return queryPage[*OrderItem](ctx, r, OrderItemsOfProduct.query(join("orderitems", pk), pk), args)
}
