package repository

// The access patterns of the catalog (products, warehouses, stock): how the API reads its items,
// declared once. The read functions of catalog_read.go build their requests from them.
var (
	ProductsByName   = ListPattern("ProductsByName", typeProduct, "`products`")
	WarehousesByName = ListPattern("WarehousesByName", typeWarehouse, "`warehouses`")
	ProductByKey     = Declare(AccessPattern{ID: "AP23", Name: "ProductByKey", What: "product by id",
		Fields:    "`product(id)`, `node(s)`, `Inventory.product`, `OrderItem.product`",
		Operation: BatchGetItem, PartitionKey: "PRODUCT#<p>", Sort: SortKeyIs, SortKey: []string{"PRODUCT#<p>"}, Calls: PerLevel})
	WarehouseByKey = Declare(AccessPattern{ID: "AP23", Name: "WarehouseByKey", What: "warehouse by id",
		Fields:    "`warehouse(id)`, `node(s)`, `Inventory.warehouse`, `OrderItem.warehouse`",
		Operation: BatchGetItem, PartitionKey: "WAREHOUSE#<w>", Sort: SortKeyIs, SortKey: []string{"WAREHOUSE#<w>"}, Calls: PerLevel})
	InventoryByKey = Declare(AccessPattern{ID: "AP23", Name: "InventoryByKey", What: "a product's stock in one warehouse",
		Fields:    "`setInventory` (the stock it changes, read with the product and the warehouse)",
		Operation: BatchGetItem, PartitionKey: "PRODUCT#<p>", Sort: SortKeyIs, SortKey: []string{"INV#<w>"}, Calls: PerLevel})
	InventoryOfProduct = Declare(AccessPattern{ID: "AP24", Name: "InventoryOfProduct", What: "a product's stock per warehouse, and its total",
		Fields:    "`Product.inventory`, `Product.totalInventory`",
		Operation: Query, PartitionKey: "PRODUCT#<p>", Sort: SortKeyBeginsWith, SortKey: []string{inventorySKPrefix}, Calls: PerParent,
		Notes: "the products of a level together; the total is an attribute of the product item, kept in every stock write's transaction (no call)"})
	ProductWithInventory = Declare(AccessPattern{ID: "AP24", Name: "ProductWithInventory", What: "a product by id with its stock",
		Fields:    "`product(id) { inventory }`, `node(id) { ... on Product { inventory } }`",
		Operation: Query, PartitionKey: "PRODUCT#<p>", Sort: SortKeyBetween, SortKey: []string{inventorySKPrefix, "PRODUCT#<p>"}, Calls: PerParent,
		Notes: "ONE Query, Limit page+2: the stock (`INV#`) sorts before the product's own item, which ends the range, so the page is the plain list's, cursors included; " +
			"a product stocked in more warehouses than the page is not reached by it and is read by key (one BatchGetItem more, one round later)"})
)
