package catalog

import "singletable/repository"

// The access patterns of the catalog (products, warehouses, stock): how the API reads its items,
// declared once. The read functions of read.go build their requests from them.
var (
	ProductsByName   = repository.ListPattern("ProductsByName", typeProduct, "`products`")
	WarehousesByName = repository.ListPattern("WarehousesByName", typeWarehouse, "`warehouses`")
	ProductByKey     = repository.Declare(repository.AccessPattern{ID: "AP23", Name: "ProductByKey", What: "product by id",
		Fields:    "`product(id)`, `node(s)`, `Inventory.product`, `OrderItem.product`",
		Operation: repository.BatchGetItem, PartitionKey: "PRODUCT#<p>", Sort: repository.SortKeyIs, SortKey: []string{"PRODUCT#<p>"}, Calls: repository.PerLevel})
	WarehouseByKey = repository.Declare(repository.AccessPattern{ID: "AP23", Name: "WarehouseByKey", What: "warehouse by id",
		Fields:    "`warehouse(id)`, `node(s)`, `Inventory.warehouse`, `OrderItem.warehouse`",
		Operation: repository.BatchGetItem, PartitionKey: "WAREHOUSE#<w>", Sort: repository.SortKeyIs, SortKey: []string{"WAREHOUSE#<w>"}, Calls: repository.PerLevel})
	InventoryByKey = repository.Declare(repository.AccessPattern{ID: "AP23", Name: "InventoryByKey", What: "a product's stock in one warehouse",
		Fields:    "`setInventory` (the stock it changes, read with the product and the warehouse)",
		Operation: repository.BatchGetItem, PartitionKey: "PRODUCT#<p>", Sort: repository.SortKeyIs, SortKey: []string{"INV#<w>"}, Calls: repository.PerLevel})
	InventoryOfProduct = repository.Declare(repository.AccessPattern{ID: "AP24", Name: "InventoryOfProduct", What: "a product's stock per warehouse, and its total",
		Fields:    "`Product.inventory`, `Product.totalInventory`",
		Operation: repository.Query, PartitionKey: "PRODUCT#<p>", Sort: repository.SortKeyBeginsWith, SortKey: []string{inventorySKPrefix}, Calls: repository.PerParent,
		Notes: "the products of a level together; the total is an attribute of the product item, kept in every stock write's transaction (no call)"})
	ProductWithInventory = repository.Declare(repository.AccessPattern{ID: "AP24", Name: "ProductWithInventory", What: "a product by id with its stock",
		Fields:    "`product(id) { inventory }`, `node(id) { ... on Product { inventory } }`",
		Operation: repository.Query, PartitionKey: "PRODUCT#<p>", Sort: repository.SortKeyBetween, SortKey: []string{inventorySKPrefix, "PRODUCT#<p>"}, Calls: repository.PerParent,
		Notes: "ONE Query, Limit page+2: the stock (`INV#`) sorts before the product's own item, which ends the range, so the page is the plain list's, cursors included; " +
			"a product stocked in more warehouses than the page is not reached by it and is read by key (one BatchGetItem more, one round later)"})
)
