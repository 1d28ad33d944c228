package planner

import (
	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// A Read is one access pattern as the API runs it: the repository's declaration, beside the
// entity it reads (repository.AccessPattern: its number, operation, index, key condition and how
// its calls scale). The planner prices and explains operations with the declarations themselves.
// Where a list has variants that cost the same (locations of a whole country or under a state,
// a user's tickets with or without a created range), its row names the general one. A read's calls are counted for pages
// that fit one call; a Query whose page needs more (a status filter that skips items, a
// customer's orders with more items than the first call assumes, 1 MB of items) makes more, page
// by page.
type Read = repository.AccessPattern

// Operation and Scaling are the repository's: what a read calls and how its calls grow.
type (
	Operation = repository.Operation
	Scaling   = repository.Scaling
)

// The operations and scalings, by the names the planner's tables use.
const (
	Query        = repository.Query
	BatchGetItem = repository.BatchGetItem
	GetItem      = repository.GetItem
	PerParent    = repository.PerParent
	PerShard     = repository.PerShard
	PerMonth     = repository.PerMonth
	PerLevel     = repository.PerLevel
)

// ByKey is the read of an object of each node type by its global ID (node, nodes, the typed
// lookups).
var ByKey = map[string]Read{
	"Organization": saas.OrganizationByKey,
	"User":         saas.UserByKey,
	"Ticket":       saas.TicketByKey,
	"Customer":     commerce.CustomerByKey,
	"Order":        commerce.OrderByKey,
	"Department":   hr.DepartmentByKey,
	"Employee":     hr.EmployeeByKey,
	"Location":     hr.LocationByKey,
	"Product":      catalog.ProductByKey,
	"Warehouse":    catalog.WarehouseByKey,
}
