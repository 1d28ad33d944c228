package loaders

import (
	"context"

	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
)

// Products lists products by name (AP7), primes them and reads ahead what their level needs.
func (l *Loaders) Products(ctx context.Context, args repository.PageArgs, level Level) (repository.Page[*catalog.Product], error) {
	return l.lists.products.load(ctx, listPageOf(args, level))
}

// Warehouses lists warehouses by name (AP7), primes them and reads ahead what their level needs.
func (l *Loaders) Warehouses(ctx context.Context, args repository.PageArgs, level Level) (repository.Page[*catalog.Warehouse], error) {
	return l.lists.warehouses.load(ctx, listPageOf(args, level))
}

// productListKey is a list hanging from a product: its stock (page unused: all of it) or a page
// of its order items.
type productListKey struct {
	product string
	listPage
}

func productListKeys(products []string, args repository.PageArgs, level Level) []productListKey {
	return keysOf(products, func(p string) productListKey { return productListKey{product: p, listPage: listPageOf(args, level)} })
}

// InventoryOf is a product's stock in every warehouse (AP24: one Query of its partition).
func (l *Loaders) InventoryOf(ctx context.Context, product string, level Level) (repository.Page[*catalog.Inventory], error) {
	return l.lists.inventories.load(ctx, productListKeys([]string{product}, repository.PageArgs{}, level)[0])
}

// StartInventories starts the stock lists of products, every product of a level, as one batch.
func (l *Loaders) StartInventories(ctx context.Context, products []string, level Level) {
	l.lists.inventories.startAll(ctx, productListKeys(products, repository.PageArgs{}, level))
}

func (l *Loaders) readInventories(ctx context.Context, k productListKey) (repository.Page[*catalog.Inventory], error) {
	return l.repo.InventoryOfProduct(ctx, k.product, repository.PageArgs{First: catalog.MaxWarehousesPerProduct})
}

// ProductWithInventory reads a product with the first page of its stock in one Query (AP24) and
// primes both.
func (l *Loaders) ProductWithInventory(ctx context.Context, product string, first int) (*catalog.Product, repository.Page[*catalog.Inventory], error) {
	r, err := l.lists.productWithStock.load(ctx, withChildrenKey{parent: product, first: first})
	return r.parent, r.children, err
}

// StartProductWithInventory starts ProductWithInventory without waiting for it.
func (l *Loaders) StartProductWithInventory(ctx context.Context, product string, first int) {
	l.lists.productWithStock.startAll(ctx, []withChildrenKey{{parent: product, first: first}})
}

func (l *Loaders) readProductWithInventory(ctx context.Context, k withChildrenKey) (*catalog.Product, repository.Page[*catalog.Inventory], error) {
	return l.repo.ProductWithInventory(ctx, k.parent, k.first)
}

// OrderItemsOfProduct pages through the order lines naming a product, newest first (AP25).
func (l *Loaders) OrderItemsOfProduct(ctx context.Context, product string, args repository.PageArgs, level Level) (repository.Page[*commerce.OrderItem], error) {
	return l.lists.productItems.load(ctx, productListKeys([]string{product}, args, level)[0])
}

// StartOrderItemsOfProducts starts the order-line lists of products (one page each), every
// product of a level, as one batch.
func (l *Loaders) StartOrderItemsOfProducts(ctx context.Context, products []string, args repository.PageArgs, level Level) {
	l.lists.productItems.startAll(ctx, productListKeys(products, args, level))
}

func (l *Loaders) readProductItems(ctx context.Context, k productListKey) (repository.Page[*commerce.OrderItem], error) {
	return l.repo.OrderItemsOfProduct(ctx, k.product, k.page.args())
}
