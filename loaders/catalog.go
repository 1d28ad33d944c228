package loaders

import (
	"context"

	"singletable/repository"
)

// rootListKey is a page of a root list without arguments beyond its page (products, warehouses).
type rootListKey struct {
	page  pageKey
	level Level
}

// readRootList reads one page of a root list with list, primes its items and reads ahead what
// their level needs.
func readRootList[T repository.Entity](ctx context.Context, l *Loaders, k rootListKey, list func(context.Context, repository.PageArgs) (repository.Page[T], error)) (repository.Page[T], error) {
	p, err := list(ctx, k.page.args())
	prime(ctx, l, p.Items...)
	l.ReadAhead(ctx, LevelObjects{Level: k.level, Objects: entities(p.Items)})
	return p, err
}

// Products lists products by name (AP7), primes them and reads ahead what their level needs.
func (l *Loaders) Products(ctx context.Context, args repository.PageArgs, level Level) (repository.Page[*repository.Product], error) {
	return l.lists.products.load(ctx, rootListKey{page: pageOf(args), level: level})
}

func (l *Loaders) readProducts(ctx context.Context, k rootListKey) (repository.Page[*repository.Product], error) {
	return readRootList(ctx, l, k, l.repo.ListProducts)
}

// Warehouses lists warehouses by name (AP7), primes them and reads ahead what their level needs.
func (l *Loaders) Warehouses(ctx context.Context, args repository.PageArgs, level Level) (repository.Page[*repository.Warehouse], error) {
	return l.lists.warehouses.load(ctx, rootListKey{page: pageOf(args), level: level})
}

func (l *Loaders) readWarehouses(ctx context.Context, k rootListKey) (repository.Page[*repository.Warehouse], error) {
	return readRootList(ctx, l, k, l.repo.ListWarehouses)
}

// productListKey is a list hanging from a product: its stock (page unused: all of it) or a page
// of its order items.
type productListKey struct {
	product string
	page    pageKey
	level   Level
}

func productListKeys(products []string, args repository.PageArgs, level Level) []productListKey {
	keys := make([]productListKey, len(products))
	for i, p := range products {
		keys[i] = productListKey{product: p, page: pageOf(args), level: level}
	}
	return keys
}

// InventoryOf is a product's stock in every warehouse (AP24: one Query of its partition).
func (l *Loaders) InventoryOf(ctx context.Context, product string, level Level) (repository.Page[*repository.Inventory], error) {
	return l.lists.inventories.load(ctx, productListKeys([]string{product}, repository.PageArgs{}, level)[0])
}

// StartInventories starts the stock lists of products, every product of a level, as one batch.
func (l *Loaders) StartInventories(ctx context.Context, products []string, level Level) {
	l.lists.inventories.startAll(ctx, productListKeys(products, repository.PageArgs{}, level))
}

func (l *Loaders) readInventories(ctx context.Context, keys []productListKey, whole bool, answer func(int, repository.Page[*repository.Inventory], error)) ([]repository.Page[*repository.Inventory], []error) {
	return readLevel(ctx, l, keys, whole, "inventory query", func(k productListKey) Level { return k.level },
		func(ctx context.Context, k productListKey) (repository.Page[*repository.Inventory], error) {
			return l.repo.InventoryOfProduct(ctx, k.product)
		}, answer)
}

// OrderItemsOfProduct pages through the order lines naming a product, newest first (AP25).
func (l *Loaders) OrderItemsOfProduct(ctx context.Context, product string, args repository.PageArgs, level Level) (repository.Page[*repository.OrderItem], error) {
	return l.lists.productItems.load(ctx, productListKey{product: product, page: pageOf(args), level: level})
}

// StartOrderItemsOfProducts starts the order-line lists of products (one page each), every
// product of a level, as one batch.
func (l *Loaders) StartOrderItemsOfProducts(ctx context.Context, products []string, args repository.PageArgs, level Level) {
	l.lists.productItems.startAll(ctx, productListKeys(products, args, level))
}

func (l *Loaders) readProductItems(ctx context.Context, keys []productListKey, whole bool, answer func(int, repository.Page[*repository.OrderItem], error)) ([]repository.Page[*repository.OrderItem], []error) {
	return readLevel(ctx, l, keys, whole, "product order items query", func(k productListKey) Level { return k.level },
		func(ctx context.Context, k productListKey) (repository.Page[*repository.OrderItem], error) {
			p, err := l.repo.OrderItemsOfProduct(ctx, k.product, k.page.args())
			prime(ctx, l, p.Items...)
			return p, err
		}, answer)
}
