package catalog

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
	"singletable/repository"
)

// MaxStock bounds one product's stock in one warehouse, so that a product's total over every
// warehouse stays far inside what the API's Int can return.
const MaxStock = 1_000_000

// SetInventoryAttempts bounds how often SetInventory re-reads a stock that changed between its
// read and its write (orders taking from it) before it answers CONFLICT.
const SetInventoryAttempts = 5

// CreateProductPlan is what CreateProduct does (explain plans the mutation from it).
var CreateProductPlan = repository.OneTransaction("Put PRODUCT#<p> and its sku guard if absent")

// CreateProduct stores a new product and the item that reserves its SKU, in one transaction.
func (r *Catalog) CreateProduct(ctx context.Context, name, sku string) (*Product, error) {
	name, err := repository.CleanName("name", name)
	if err != nil {
		return nil, err
	}
	if sku, err = repository.CleanText("sku", sku, 1, repository.MaxSKULen, false); err != nil {
		return nil, err
	}
	id, now, err := r.NewEntityID()
	if err != nil {
		return nil, err
	}
	p := &Product{ID: id, Name: name, SKU: sku, CreatedAt: now, Counted: true}
	return repository.CreateNew(ctx, r.Repo, productEntity, p, "product",
		r.PutNew(productSKUGuardItem(p), &apperr.Error{Code: apperr.CodeConflict, Field: "sku", Message: "a product with this sku already exists"}))
}

// CreateWarehousePlan is what CreateWarehouse does (explain plans the mutation from it).
var CreateWarehousePlan = repository.OneTransaction("Put WAREHOUSE#<w> if absent")

// CreateWarehouse stores a new warehouse.
func (r *Catalog) CreateWarehouse(ctx context.Context, name, region string) (*Warehouse, error) {
	name, err := repository.CleanName("name", name)
	if err != nil {
		return nil, err
	}
	if region, err = repository.CleanText("region", region, 1, repository.MaxStateLen, false); err != nil {
		return nil, err
	}
	id, now, err := r.NewEntityID()
	if err != nil {
		return nil, err
	}
	return repository.CreateNew(ctx, r.Repo, warehouseEntity, &Warehouse{ID: id, Name: name, Region: region, CreatedAt: now}, "warehouse")
}

// errStockMoved says the stock SetInventory read changed before its write: read it again.
var errStockMoved = errors.New("stock changed since it was read")

// SetInventoryPlan is what SetInventory does (explain plans the mutation from it).
var SetInventoryPlan = repository.WritePlan{Attempts: SetInventoryAttempts, Calls: []repository.WriteCall{
	repository.ConsistentRead("PK = PRODUCT#<p> SK = INV#<w>, PK = SK = PRODUCT#<p>, PK = SK = WAREHOUSE#<w>"),
	repository.TransactCall("Put PRODUCT#<p> INV#<w> if its quantity is as read; ADD the difference to the product's totalInventory; check the warehouse exists"),
}}

// SetInventory sets a product's stock in a warehouse to quantity. The stock is read
// (consistently, with the product and the warehouse) and written in ONE TransactWriteItems with
// the product's totalInventory, moved by the difference, and a check that the warehouse exists.
// The write is conditioned on the stock it read, so an order taking from the same stock in
// between makes it read again (up to SetInventoryAttempts times): the total never drifts from
// the sum of its stock, however the writes interleave.
func (r *Catalog) SetInventory(ctx context.Context, product, warehouse string, quantity int) (*Inventory, error) {
	k, err := InventoryKey(product, warehouse)
	if err != nil {
		return nil, err
	}
	if quantity < 0 || quantity > MaxStock {
		return nil, apperr.InvalidInput("quantity", "quantity must be between 0 and %d", MaxStock)
	}
	for attempt := 1; ; attempt++ {
		inv, err := r.setInventoryOnce(ctx, k, product, warehouse, quantity)
		if !errors.Is(err, errStockMoved) {
			return inv, err
		}
		if attempt == SetInventoryPlan.Tries() {
			return nil, &apperr.Error{Code: apperr.CodeConflict, Reason: "stock", Message: "the stock keeps changing; retry", Cause: err}
		}
	}
}

// setInventoryOnce is one read and conditioned write of SetInventory.
func (r *Catalog) setInventoryOnce(ctx context.Context, k repository.Key, product, warehouse string, quantity int) (*Inventory, error) {
	pk, wk := ProductKeyOf(product), WarehouseKeyOf(warehouse)
	found, err := r.ReadConsistent(ctx, k, pk, wk)
	if err != nil {
		return nil, err
	}
	if _, ok := repository.FoundAs[*Product](found, pk); !ok {
		return nil, repository.NotFoundField("productId", "product")
	}
	if _, ok := repository.FoundAs[*Warehouse](found, wk); !ok {
		return nil, repository.NotFoundField("warehouseId", "warehouse")
	}
	inv := &Inventory{ProductID: product, WarehouseID: warehouse, Quantity: quantity}
	item, err := inventoryEntity.Encode(inv)
	if err != nil {
		return nil, err
	}
	put, old := r.PutNew(item, errStockMoved), 0
	if cur, ok := repository.FoundAs[*Inventory](found, k); ok {
		old = cur.Quantity
		put = r.TxPut(item, "quantity = :old", map[string]types.AttributeValue{":old": repository.NumberValue(old)}, errStockMoved)
	}
	err = r.Transact(ctx, "set inventory", []repository.TxItem{
		put,
		r.TxCount(pk, []repository.Delta{{Attr: AttrTotalInventory, By: quantity - old}}, repository.NotFoundField("productId", "product"), nil),
		r.MustExist(wk, repository.NotFoundField("warehouseId", "warehouse")),
	})
	if err != nil {
		return nil, err
	}
	return inv, nil
}
