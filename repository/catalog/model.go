package catalog

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
)

// The catalog: products, warehouses and the stock of each product in each warehouse. The entity
// definitions below say how each item is keyed (the key table in docs/data-model.md is generated
// from them).
//
// A product is the root of its own partition, and its stock lives in that partition too: one
// Inventory item per warehouse that stocks it (SK INV#<w>). So a product's stock in one warehouse
// is a key lookup, and all of its stock is one Query of its partition. The product item carries
// the sum of those quantities (totalInventory), an aggregate that every write of stock changes in
// its own transaction, so reading it costs nothing beyond the product.

// Product is something customers order. Its SKU is unique (compared without regard to case),
// guarded by an item of its own.
type Product struct {
	ID        string    `dynamodbav:"id"`
	Name      string    `dynamodbav:"name"`
	SKU       string    `dynamodbav:"sku"`
	CreatedAt time.Time `dynamodbav:"createdAt"`
	// TotalInventory is the sum of the product's Inventory quantities, kept in the same
	// transaction as every change of one of them.
	TotalInventory int `dynamodbav:"totalInventory"`
	// Counted says TotalInventory is exact (counters.go): true from creation, or from -recount.
	Counted bool `dynamodbav:"counted"`
}

// Key implements Entity.
func (p *Product) Key() repository.Key { return productEntity.Key(p) }

// productEntity is the definition of the Product item: the root of its partition, whose other
// items are its stock per warehouse (AP24), listed by name on GSI2 (AP7).
var productEntity = repository.Define(repository.EntityDef[Product, *Product]{
	Name: typeProduct,
	Key:  func(p *Product) repository.Key { return ProductKeyOf(p.ID) },
	Indexes: func(p *Product, _ int) []repository.IndexKey {
		return []repository.IndexKey{{Index: repository.GSI2, PK: repository.TypePK(typeProduct), SK: repository.NameSortKey(p.Name, p.ID)}}
	},
	Examples: func() []*Product { return []*Product{{ID: "<productId>", Name: "<name>"}} },
})

// ProductKey is the key of a product looked up by id (AP23).
func ProductKey(product string) (repository.Key, error) {
	if err := repository.CheckID("id", product); err != nil {
		return repository.Key{}, err
	}
	return ProductKeyOf(product), nil
}

// Warehouse is a place that holds stock.
type Warehouse struct {
	ID        string    `dynamodbav:"id"`
	Name      string    `dynamodbav:"name"`
	Region    string    `dynamodbav:"region"`
	CreatedAt time.Time `dynamodbav:"createdAt"`
}

// Key implements Entity.
func (w *Warehouse) Key() repository.Key { return warehouseEntity.Key(w) }

// warehouseEntity is the definition of the Warehouse item: the root of its own partition, listed
// by name on GSI2 (AP7).
var warehouseEntity = repository.Define(repository.EntityDef[Warehouse, *Warehouse]{
	Name: typeWarehouse,
	Key:  func(w *Warehouse) repository.Key { return WarehouseKeyOf(w.ID) },
	Indexes: func(w *Warehouse, _ int) []repository.IndexKey {
		return []repository.IndexKey{{Index: repository.GSI2, PK: repository.TypePK(typeWarehouse), SK: repository.NameSortKey(w.Name, w.ID)}}
	},
	Examples: func() []*Warehouse { return []*Warehouse{{ID: "<warehouseId>", Name: "<name>"}} },
})

// WarehouseKey is the key of a warehouse looked up by id (AP23).
func WarehouseKey(warehouse string) (repository.Key, error) {
	if err := repository.CheckID("id", warehouse); err != nil {
		return repository.Key{}, err
	}
	return WarehouseKeyOf(warehouse), nil
}

// Inventory is the stock of one product in one warehouse: never negative, because every write
// that takes from it is conditioned on there being enough.
type Inventory struct {
	ProductID   string `dynamodbav:"productId"`
	WarehouseID string `dynamodbav:"warehouseId"`
	Quantity    int    `dynamodbav:"quantity"`
}

// Key implements Entity.
func (i *Inventory) Key() repository.Key { return inventoryEntity.Key(i) }

// inventoryEntity is the definition of the Inventory item: in its product's partition, one per
// warehouse, so that a product's stock is one Query and its stock in a warehouse one key (AP24).
var inventoryEntity = repository.Define(repository.EntityDef[Inventory, *Inventory]{
	Name: typeInventory,
	Key:  func(i *Inventory) repository.Key { return InventoryKeyOf(i.ProductID, i.WarehouseID) },
	Examples: func() []*Inventory {
		return []*Inventory{{ProductID: "<productId>", WarehouseID: "<warehouseId>"}}
	},
})

// InventoryKey is the key of a product's stock in a warehouse (AP23).
func InventoryKey(product, warehouse string) (repository.Key, error) {
	if err := repository.CheckID("productId", product); err != nil {
		return repository.Key{}, err
	}
	if err := repository.CheckID("warehouseId", warehouse); err != nil {
		return repository.Key{}, err
	}
	return InventoryKeyOf(product, warehouse), nil
}

func productSKUGuardItem(p *Product) map[string]types.AttributeValue {
	item := productSKUGuardKey(p.SKU).Attributes()
	item[repository.AttrType] = repository.StringValue(typeProductSKU)
	item["productId"] = repository.StringValue(p.ID)
	return item
}

var _ = repository.DeclareItem(func() map[string]types.AttributeValue {
	return productSKUGuardItem(&Product{ID: "<productId>", SKU: "<sku>"})
}, nil)

// --- Keys: how the catalog's items are spelled in the table ---

// Item types of the catalog.
const (
	typeProduct    = "Product"
	typeProductSKU = "ProductSKU"
	typeWarehouse  = "Warehouse"
	typeInventory  = "Inventory"
)

func productPK(p string) string { return repository.Join("PRODUCT", p) }

// ProductKeyOf: a product is the root item of its own partition; its stock shares it.
func ProductKeyOf(p string) repository.Key {
	k := productPK(p)
	return repository.Key{PK: k, SK: k}
}

// inventorySKPrefix starts the sort keys of a product's stock items: begins_with on it lists the
// product's stock in every warehouse with one Query (AP24).
const inventorySKPrefix = "INV#"

// InventoryKeyOf is the stock of product p in warehouse w, in the product's partition.
func InventoryKeyOf(p, w string) repository.Key {
	return repository.Key{PK: productPK(p), SK: inventorySKPrefix + w}
}

func WarehousePK(w string) string { return repository.Join("WAREHOUSE", w) }

// WarehouseKeyOf: a warehouse is the root item of its own partition.
func WarehouseKeyOf(w string) repository.Key {
	k := WarehousePK(w)
	return repository.Key{PK: k, SK: k}
}

// productSKUGuardKey is the item that makes a product's SKU unique (compared without regard to
// case), in a partition of its own.
func productSKUGuardKey(sku string) repository.Key {
	return repository.Key{PK: repository.Join("PRODUCTSKU", repository.FoldKey(sku)), SK: "PRODUCTSKU"}
}

// AttrTotalInventory is the product's aggregate of its stock; AttrQuantity an Inventory's stock.
const (
	AttrTotalInventory = "totalInventory"
	AttrQuantity       = "quantity"
)
