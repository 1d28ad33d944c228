package repository

import (
	"context"

	"singletable/apperr"
)

// MaxWarehousesPerProduct bounds the stock items Product.inventory returns: one page of the
// product's partition, all of its stock for any catalog this size.
const MaxWarehousesPerProduct = 100

// ListProducts pages through products by name (AP7: GSI2 TYPE#Product).
func (r *Repo) ListProducts(ctx context.Context, args PageArgs) (Page[*Product], error) {
	return ListByType[*Product](ctx, r, ProductsByName, args)
}

// ListWarehouses pages through warehouses by name (AP7: GSI2 TYPE#Warehouse).
func (r *Repo) ListWarehouses(ctx context.Context, args PageArgs) (Page[*Warehouse], error) {
	return ListByType[*Warehouse](ctx, r, WarehousesByName, args)
}

// inventoryQuery is a product's stock by warehouse id (AP24): PK = PRODUCT#<p> AND
// begins_with(SK, "INV#"); its scope binds the cursors of both reads of it.
func inventoryQuery(product string) PageQuery {
	pk := productPK(product)
	return InventoryOfProduct.Query(Join("inventory", pk), pk, inventorySKPrefix)
}

// InventoryOfProduct pages through a product's stock in every warehouse, by warehouse id, with ONE
// Query of its partition (AP24). Product.inventory asks for one page of MaxWarehousesPerProduct.
func (r *Repo) InventoryOfProduct(ctx context.Context, product string, args PageArgs) (Page[*Inventory], error) {
	if err := CheckID("id", product); err != nil {
		return Page[*Inventory]{}, err
	}
	return QueryPage[*Inventory](ctx, r, inventoryQuery(product), args)
}

// ProductWithInventory reads a product and the first page of its stock with ONE Query of its
// partition (AP24): PK = PRODUCT#<p> AND SK BETWEEN "INV#" AND PRODUCT#<p>, forward. The stock
// sorts before the product's own item, which ends the range, so with Limit first+2 (the page, one
// more to learn whether a next page exists, the product) the page is InventoryOfProduct's first,
// in its order and with its cursors, and the product follows it. Read backwards the product would
// come first, but the page would then be the last warehouses, not the plain list's first ones.
// A product stocked in more than first+1 warehouses lies beyond the Limit: it is then read by key,
// one BatchGetItem one round later. A product that does not exist (or is being removed) is
// NOT_FOUND, as its lookup by key answers.
func (r *Repo) ProductWithInventory(ctx context.Context, product string, first int) (*Product, Page[*Inventory], error) {
	if err := CheckID("id", product); err != nil {
		return nil, Page[*Inventory]{}, err
	}
	pk := productPK(product)
	items, args, err := r.ParentWithPage(ctx, ProductWithInventory, first, pk, inventorySKPrefix, pk)
	if err != nil {
		return nil, Page[*Inventory]{}, err
	}
	stock, last := items, len(items)-1
	var p *Product
	switch {
	case last >= 0 && StringAttr(items[last], AttrType) == typeProduct:
		stock = items[:last]
		if items[last][AttrDeleting] == nil { // being removed by a sweep: answered as missing
			p, err = DecodeAs[*Product](items[last])
		}
	case len(items) == args.First+2: // more stock than the page: the product lies beyond it
		p, err = r.productByKey(NextRound(ctx), product)
	}
	if err != nil {
		return nil, Page[*Inventory]{}, err
	}
	if p == nil {
		return nil, Page[*Inventory]{}, apperr.NotFound("product")
	}
	inventory, err := DecodeAll[*Inventory](stock)
	if err != nil {
		return nil, Page[*Inventory]{}, err
	}
	return p, FinishPage(r, inventoryQuery(product).Scope, KeyAttrs(""), inventory, stock, args), nil
}

// productByKey reads a product by key (AP23), nil when it does not exist.
func (r *Repo) productByKey(ctx context.Context, product string) (*Product, error) {
	k := ProductKeyOf(product)
	found, err := r.batchGet(ctx, []Key{k}, false)
	if err != nil {
		return nil, err
	}
	p, _ := FoundAs[*Product](found, k)
	return p, nil
}
