package catalog

import (
	"context"

	"singletable/apperr"
	"singletable/repository"
)

// MaxWarehousesPerProduct bounds the stock items Product.inventory returns: one page of the
// product's partition, all of its stock for any catalog this size.
const MaxWarehousesPerProduct = 100

// ListProducts pages through products by name (AP7: GSI2 TYPE#Product).
func (r *Catalog) ListProducts(ctx context.Context, args repository.PageArgs) (repository.Page[*Product], error) {
	return repository.ListByType[*Product](ctx, r.Repo, ProductsByName, args)
}

// ListWarehouses pages through warehouses by name (AP7: GSI2 TYPE#Warehouse).
func (r *Catalog) ListWarehouses(ctx context.Context, args repository.PageArgs) (repository.Page[*Warehouse], error) {
	return repository.ListByType[*Warehouse](ctx, r.Repo, WarehousesByName, args)
}

// inventoryQuery is a product's stock by warehouse id (AP24): PK = PRODUCT#<p> AND
// begins_with(SK, "INV#"); its scope binds the cursors of both reads of it.
func inventoryQuery(product string) repository.PageQuery {
	pk := productPK(product)
	return InventoryOfProduct.Query(repository.Join("inventory", pk), pk, inventorySKPrefix)
}

// InventoryOfProduct pages through a product's stock in every warehouse, by warehouse id, with ONE
// Query of its partition (AP24). Product.inventory asks for one page of MaxWarehousesPerProduct.
func (r *Catalog) InventoryOfProduct(ctx context.Context, product string, args repository.PageArgs) (repository.Page[*Inventory], error) {
	if err := repository.CheckID("id", product); err != nil {
		return repository.Page[*Inventory]{}, err
	}
	return repository.QueryPage[*Inventory](ctx, r.Repo, inventoryQuery(product), args)
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
func (r *Catalog) ProductWithInventory(ctx context.Context, product string, first int) (*Product, repository.Page[*Inventory], error) {
	if err := repository.CheckID("id", product); err != nil {
		return nil, repository.Page[*Inventory]{}, err
	}
	pk := productPK(product)
	items, args, err := r.ParentWithPage(ctx, ProductWithInventory, first, pk, inventorySKPrefix, pk)
	if err != nil {
		return nil, repository.Page[*Inventory]{}, err
	}
	stock, last := items, len(items)-1
	var p *Product
	switch {
	case last >= 0 && repository.StringAttr(items[last], repository.AttrType) == typeProduct:
		stock = items[:last]
		if items[last][repository.AttrDeleting] == nil { // being removed by a sweep: answered as missing
			p, err = repository.DecodeAs[*Product](items[last])
		}
	case len(items) == args.First+2: // more stock than the page: the product lies beyond it
		p, err = r.productByKey(repository.NextRound(ctx), product)
	}
	if err != nil {
		return nil, repository.Page[*Inventory]{}, err
	}
	if p == nil {
		return nil, repository.Page[*Inventory]{}, apperr.NotFound("product")
	}
	inventory, err := repository.DecodeAll[*Inventory](stock)
	if err != nil {
		return nil, repository.Page[*Inventory]{}, err
	}
	return p, repository.FinishPage(r.Repo, inventoryQuery(product).Scope, repository.KeyAttrs(""), inventory, stock, args), nil
}

// productByKey reads a product by key (AP23), nil when it does not exist.
func (r *Catalog) productByKey(ctx context.Context, product string) (*Product, error) {
	k := ProductKeyOf(product)
	found, err := r.BatchGet(ctx, []repository.Key{k})
	if err != nil {
		return nil, err
	}
	p, _ := repository.FoundAs[*Product](found, k)
	return p, nil
}
