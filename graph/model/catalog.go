package model

import (
	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
)

// Product is the GraphQL Product: the stored entity plus, when the product was read together with
// its stock (AP24), that page of stock.
type Product struct {
	*catalog.Product
	// InventoryAhead is the stock read with the product, for the `inventory` field whose response
	// key is InventoryAheadFor (the one the plan read with it). Nil when none was.
	InventoryAhead    *repository.Page[*catalog.Inventory]
	InventoryAheadFor string
}

// IsNode marks Product as a Node.
func (Product) IsNode() {}

// GetID is the global ID.
func (p Product) GetID() string { return Products.ID(p.Product) }

// Warehouse is the GraphQL Warehouse.
type Warehouse struct {
	*catalog.Warehouse
}

// IsNode marks Warehouse as a Node.
func (Warehouse) IsNode() {}

// GetID is the global ID.
func (w Warehouse) GetID() string { return Warehouses.ID(w.Warehouse) }

// Inventory is the GraphQL Inventory (not a Node: it is reached through its product).
type Inventory struct {
	*catalog.Inventory
}

// ProductEdge is one product of a connection.
type ProductEdge struct {
	Cursored
	Node *Product
}

// WarehouseEdge is one warehouse of a connection.
type WarehouseEdge struct {
	Cursored
	Node *Warehouse
}

// OrderItemEdge is one order line of a connection (a product's order items).
type OrderItemEdge struct {
	Cursored
	Node *OrderItem
}

// AccountRepSales is the GraphQL AccountRepSales: one rep's place in a ranking.
type AccountRepSales struct {
	commerce.RepTotal
}

// InventoryChange is the GraphQL InventoryChange: a change of a product item (its total stock).
type InventoryChange struct {
	Cursored
	Kind                   ChangeKind
	Product                *Product
	PreviousTotalInventory *int
}

// JobHistoryEdge is one earlier job of an employee's history.
type JobHistoryEdge struct {
	Cursored
	Node *hr.JobHistory
}
