package planner

import (
	"slices"

	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
	"singletable/repository/stream"
)

// Kind is what a field of the table reads.
type Kind int

const (
	// Lookup is a root field that reads objects by global ID: node, nodes and the typed lookups.
	// Its read is ByKey of the ID's type (or the Combined read of the list the operation asks
	// for on it).
	Lookup Kind = iota + 1
	// List is a connection: a Query per parent and page, paged by `first` and `after`.
	List
	// Items is a plain list of objects at keys that follow from the parent (an order's items).
	Items
	// ToOne is an object at a key that follows from the parent (a ticket's reporter).
	ToOne
	// Relation is an employee's department, manager or mentor (AP10): the relation item at a key
	// that follows from the employee, then the object it names.
	Relation
	// Free is a field answered from an item the operation has read already, with no call and no
	// step of its own: a connection's totalCount, from the counters on the item of the object the
	// list hangs from (AP22); a customer's addresses; a change's object, the log item's image.
	// Answers names that access pattern; Reads is empty. With Of, it returns objects whose own
	// fields are planned as any others'.
	Free
)

// Filters names a list's filter arguments by role ("" for none): the status it is narrowed to and
// the bounds of its time range.
type Filters struct {
	Status, After, Before string
}

// A Field is one row of the table: how one field of one object type is read.
type Field struct {
	// Type and Name are the schema's object type and field ("Query" for root fields).
	Type, Name string
	Kind       Kind
	// Of is the object type the field returns ("" for node and nodes: the ID's type).
	Of string
	// Answers is the access pattern that answers a Free field.
	Answers string
	// Reads are the reads the field makes, in order, each waiting for the one before (an
	// inverse-relation list's Query, then its members by key; a relation item, then its target).
	Reads []Read

	// Filters are a list's filter arguments. A list is started ahead of its resolver (for every
	// parent of its level at once, or from its parent's ID before the parent is read) on its
	// first page only, without `after`: this is the plain form. Read together with its parent
	// (Combined) it must have no filter either.
	Filters Filters
	// Variant is the row of this field when its argument By is given (a customer's orders with
	// a status come from another index, without their items).
	By      string
	Variant *Field
	// Combined is the read of a parent asked for by ID together with the first page of this list
	// (or, for Items, the whole list), in one call: the parent's read becomes this one, and the
	// list costs nothing more.
	Combined *Read
	// OneParent restricts Combined to a lookup of one object (node, a typed lookup): for
	// nodes(ids:) a plain lookup of every parent and of their lists' keys is fewer calls.
	OneParent bool
	// GathersLevel says the list's Query returns references (relation items), and its elements
	// are then read by key (Reads[1]) for every list of the level at once, when every list's Query
	// is back, together with the first lookups the elements' own fields ask for.
	GathersLevel bool
	// Primes are the fields of a list's elements that its own read answers, so that they cost
	// nothing: the items of a customer's orders come with them. (The relation an inverse-relation
	// list reads is its members' own and points at the list's parent: SameForAll, with the
	// parent's own key.)
	Primes []string

	// Keys appends to dst the keys a ToOne or Items field looks up, from its parent object;
	// MaxKeys is the most it appends for one parent (1 when zero): what an explain counts. For a
	// plain List (no `first`), MaxKeys is the most elements its one page has.
	Keys    func(dst []repository.Key, parent repository.Entity) []repository.Key
	MaxKeys int
	// MaxFirst and DefaultFirst are the largest `first` a root list takes and its page without
	// one, when they are not repository.MaxPageSize and DefaultPageSize (the change log's pulls).
	MaxFirst, DefaultFirst int
	// Rel is a Relation's relation type.
	Rel hr.RelationType
	// SameForAll are the to-one fields of a list's elements whose key is the same for every
	// element and follows from the list's parent (every ticket of a user's list has that user as
	// reporter and its organization as organization), by field name: they are looked up when
	// the list starts, in the round of its Query, not after it. A nil key is the list parent's
	// own: read already, it costs nothing, and what its selection asks for (a report's
	// manager { department }) is read ahead with the parent's level, never by the first element.
	SameForAll map[string]func(dst []repository.Key, listParent repository.Entity) []repository.Key
}

// primes reports whether list f's own read answers field name of its elements (Primes); false
// for a nil f.
func (f *Field) primes(name string) bool { return f != nil && slices.Contains(f.Primes, name) }

// sameForAll is the key of field name that every element of list f shares (SameForAll).
func (f *Field) sameForAll(name string) (func([]repository.Key, repository.Entity) []repository.Key, bool) {
	if f == nil {
		return nil, false
	}
	key, ok := f.SameForAll[name]
	return key, ok
}

// variant is the row of f for a field asked with arguments args.
func (f *Field) variant(args map[string]any) *Field {
	if f.Variant != nil && args[f.By] != nil {
		return f.Variant
	}
	return f
}

// Table is every field the planner knows, by object type and field name. Explain (a request
// asking for the plan of an operation instead of its data) and the complexity limit are computed
// by walking an operation with this same table (Explain): for every field of a level, Reads say
// which calls it makes (operation, index, key condition, access pattern) and how they scale, Kind
// Free and Combined when it makes none, and SameForAll, Combined and the starts of Level when its reads
// run in the same round as its parent's. The resolvers and loaders run what the levels built from
// it decide (see Level); the table is the one description of both.
//
// How explain counts, per field of a level (objects n, pages of size first):
//   - Lookup: ByKey of each ID's type, PerLevel over the root level's keys; or the Combined read
//     of the list the level reads with it (Level.Combined), one call per object.
//   - List: Reads[0] PerParent (× shards for PerShard), in the round after the parent's, or in
//     the parent's own round when the level starts it from the parent's ID (a lookup's lists, see
//     Level.Lists); for GathersLevel, Reads[1] once for the whole level in the next round.
//   - ToOne, Items: Reads[0] PerLevel in the round after the parent's; nothing for the fields of
//     the parent list's Primes; in the list's round for SameForAll (nothing when the key is the
//     parent's own).
//   - Relation: Reads[0] then Reads[1], PerLevel, in the two rounds after the parent's; a
//     relation of a relation's target (manager { department }) one round later each.
//   - Free: nothing (a connection's totalCount: the parent it hangs from is read, whole, by the
//     read that found it, and carries the counters; see Answers).
var Table = tableOf(
	// Root lookups by ID and root lists.
	&Field{Type: "Query", Name: "node", Kind: Lookup},
	&Field{Type: "Query", Name: "nodes", Kind: Lookup},
	&Field{Type: "Query", Name: "organization", Kind: Lookup, Of: "Organization"},
	&Field{Type: "Query", Name: "user", Kind: Lookup, Of: "User"},
	&Field{Type: "Query", Name: "ticket", Kind: Lookup, Of: "Ticket"},
	&Field{Type: "Query", Name: "customer", Kind: Lookup, Of: "Customer"},
	&Field{Type: "Query", Name: "order", Kind: Lookup, Of: "Order"},
	&Field{Type: "Query", Name: "department", Kind: Lookup, Of: "Department"},
	&Field{Type: "Query", Name: "employee", Kind: Lookup, Of: "Employee"},
	&Field{Type: "Query", Name: "organizations", Kind: List, Of: "Organization", Reads: []Read{saas.OrganizationsByName}},
	&Field{Type: "Query", Name: "departments", Kind: List, Of: "Department", Reads: []Read{hr.DepartmentsByName}},
	&Field{Type: "Query", Name: "customers", Kind: List, Of: "Customer", Reads: []Read{commerce.CustomersByName}},
	&Field{Type: "Query", Name: "employeesByJobTitle", Kind: List, Of: "Employee", Reads: []Read{hr.EmployeesByJobTitle}},
	&Field{Type: "Query", Name: "employeesByName", Kind: List, Of: "Employee", Reads: []Read{hr.EmployeesByName}},
	&Field{Type: "Query", Name: "employeesHiredSince", Kind: List, Of: "Employee", Reads: []Read{hr.EmployeesHiredSince}},
	&Field{Type: "Query", Name: "locations", Kind: List, Of: "Location", Reads: []Read{hr.LocationsUnder}},
	&Field{Type: "Query", Name: "ordersByStatus", Kind: List, Of: "Order", Reads: []Read{commerce.OrdersByStatus}},

	// SaaS: Organization → Users → Tickets.
	OrganizationUsers,
	&Field{Type: "User", Name: "organization", Kind: ToOne, Of: "Organization", Reads: []Read{saas.OrganizationByKey},
		Keys: one(func(u *saas.User) (repository.Key, error) { return saas.OrganizationKey(u.OrgID) })},
	UserTickets,
	&Field{Type: "Ticket", Name: "reporter", Kind: ToOne, Of: "User", Reads: []Read{saas.UserByKey},
		Keys: one(func(t *saas.Ticket) (repository.Key, error) { return saas.UserKey(t.OrgID, t.ReporterID) })},
	&Field{Type: "Ticket", Name: "organization", Kind: ToOne, Of: "Organization", Reads: []Read{saas.OrganizationByKey},
		Keys: one(func(t *saas.Ticket) (repository.Key, error) { return saas.OrganizationKey(t.OrgID) })},
	TicketHistory,
	&Field{Type: "UserConnection", Name: "totalCount", Kind: Free, Answers: commerce.CountersOfParent.ID},
	&Field{Type: "TicketConnection", Name: "totalCount", Kind: Free, Answers: commerce.CountersOfParent.ID},

	// Commerce: Customer → Orders → items.
	CustomerOrders,
	OrderItems,
	&Field{Type: "Order", Name: "customer", Kind: ToOne, Of: "Customer", Reads: []Read{commerce.CustomerByKey},
		Keys: one(func(o *commerce.Order) (repository.Key, error) { return commerce.CustomerKey(o.CustomerID) })},
	&Field{Type: "OrderConnection", Name: "totalCount", Kind: Free, Answers: commerce.CountersOfParent.ID},
	// A customer's addresses are attributes of its profile item (AP15).
	&Field{Type: "Customer", Name: "mailingAddresses", Kind: Free, Of: "MailingAddress", Answers: commerce.CustomerByKey.ID},

	// HR: Department → Employees, managers and mentors, locations.
	&Field{Type: "Department", Name: "location", Kind: ToOne, Of: "Location", Reads: []Read{hr.LocationByKey},
		Keys: one(func(d *hr.Department) (repository.Key, error) { return hr.LocationKey(d.Location) })},
	DepartmentEmployees,
	&Field{Type: "Employee", Name: "department", Kind: Relation, Of: "Department", Reads: []Read{hr.RelationByKey, hr.RelationTargetByKey}, Rel: hr.RelDepartment},
	&Field{Type: "Employee", Name: "manager", Kind: Relation, Of: "Employee", Reads: []Read{hr.RelationByKey, hr.RelationTargetByKey}, Rel: hr.RelManager},
	&Field{Type: "Employee", Name: "mentor", Kind: Relation, Of: "Employee", Reads: []Read{hr.RelationByKey, hr.RelationTargetByKey}, Rel: hr.RelMentor},
	EmployeeReports,
	EmployeeMentees,
	&Field{Type: "EmployeeConnection", Name: "totalCount", Kind: Free, Answers: commerce.CountersOfParent.ID},

	// Catalog: products, their stock per warehouse and their order lines.
	&Field{Type: "Query", Name: "product", Kind: Lookup, Of: "Product"},
	&Field{Type: "Query", Name: "warehouse", Kind: Lookup, Of: "Warehouse"},
	&Field{Type: "Query", Name: "products", Kind: List, Of: "Product", Reads: []Read{catalog.ProductsByName}},
	&Field{Type: "Query", Name: "warehouses", Kind: List, Of: "Warehouse", Reads: []Read{catalog.WarehousesByName}},
	ProductInventory,
	ProductOrderItems,
	// Account reps.
	&Field{Type: "Customer", Name: "accountRep", Kind: ToOne, Of: "Employee", Reads: []Read{hr.EmployeeByKey},
		Keys: one(func(c *commerce.Customer) (repository.Key, error) { return hr.EmployeeKey(c.AccountRepID) })},
	EmployeeAccounts,
	EmployeeAccountOrders,
	&Field{Type: "Employee", Name: "jobHistory", Kind: List, Of: "JobHistory", Reads: []Read{hr.JobHistoryOf}},
	&Field{Type: "Employee", Name: "warehouse", Kind: ToOne, Of: "Warehouse", Reads: []Read{hr.WarehouseOfEmployee},
		Keys: one(func(e *hr.Employee) (repository.Key, error) { return catalog.WarehouseKey(e.WarehouseID) })},
	WarehouseEmployees,
	&Field{Type: "Query", Name: "topAccountReps", Kind: List, Of: "AccountRepSales", Reads: []Read{commerce.RepSalesOfMonth}},
	// Delta sync: the pulls of the change log; a change's object comes from the log item's image.
	&Field{Type: "Query", Name: "ticketChanges", Kind: List, Of: "TicketChange", Reads: []Read{stream.ChangesOfScope}, MaxFirst: stream.MaxChangesPage, DefaultFirst: stream.DefaultChangesPage},
	&Field{Type: "Query", Name: "orderChanges", Kind: List, Of: "OrderChange", Reads: []Read{stream.ChangesOfScope}, MaxFirst: stream.MaxChangesPage, DefaultFirst: stream.DefaultChangesPage},
	&Field{Type: "Query", Name: "employeeChanges", Kind: List, Of: "EmployeeChange", Reads: []Read{stream.ChangesOfScope}, MaxFirst: stream.MaxChangesPage, DefaultFirst: stream.DefaultChangesPage},
	&Field{Type: "Query", Name: "inventoryChanges", Kind: List, Of: "InventoryChange", Reads: []Read{stream.ChangesOfScope}, MaxFirst: stream.MaxChangesPage, DefaultFirst: stream.DefaultChangesPage},
	// A change's object is the log item's image (AP33): free, though what its own fields ask
	// for is read as for any object.
	&Field{Type: "TicketChange", Name: "ticket", Kind: Free, Of: "Ticket", Answers: stream.ChangesOfScope.ID},
	&Field{Type: "OrderChange", Name: "order", Kind: Free, Of: "Order", Answers: stream.ChangesOfScope.ID},
	&Field{Type: "EmployeeChange", Name: "employee", Kind: Free, Of: "Employee", Answers: stream.ChangesOfScope.ID},
	&Field{Type: "InventoryChange", Name: "product", Kind: Free, Of: "Product", Answers: stream.ChangesOfScope.ID},
	&Field{Type: "AccountRepSales", Name: "rep", Kind: ToOne, Of: "Employee", Reads: []Read{hr.EmployeeByKey}},
	&Field{Type: "Inventory", Name: "product", Kind: ToOne, Of: "Product", Reads: []Read{catalog.ProductByKey},
		Keys: one(func(i *catalog.Inventory) (repository.Key, error) { return catalog.ProductKey(i.ProductID) })},
	&Field{Type: "Inventory", Name: "warehouse", Kind: ToOne, Of: "Warehouse", Reads: []Read{catalog.WarehouseByKey},
		Keys: one(func(i *catalog.Inventory) (repository.Key, error) { return catalog.WarehouseKey(i.WarehouseID) })},
	&Field{Type: "OrderItem", Name: "product", Kind: ToOne, Of: "Product", Reads: []Read{catalog.ProductByKey},
		Keys: one(func(i *commerce.OrderItem) (repository.Key, error) { return catalog.ProductKey(i.ProductID) })},
	&Field{Type: "OrderItem", Name: "warehouse", Kind: ToOne, Of: "Warehouse", Reads: []Read{catalog.WarehouseByKey},
		Keys: one(func(i *commerce.OrderItem) (repository.Key, error) { return catalog.WarehouseKey(i.WarehouseID) })},
	&Field{Type: "OrderItem", Name: "order", Kind: ToOne, Of: "Order", Reads: []Read{commerce.OrderByKey},
		Keys: one(func(i *commerce.OrderItem) (repository.Key, error) {
			return commerce.OrderKey(i.CustomerID, i.OrderID)
		})},
)

// The child lists, by name: the resolvers bind each to the loader call that reads it.
var (
	OrganizationUsers = &Field{Type: "Organization", Name: "users", Kind: List, Of: "User", Reads: []Read{saas.UsersOfOrganization},
		Combined: &saas.OrganizationWithUsers}
	UserTickets = &Field{Type: "User", Name: "tickets", Kind: List, Of: "Ticket", Reads: []Read{saas.TicketsOfUser},
		Filters: Filters{Status: "status", After: "createdAfter", Before: "createdBefore"}, Combined: &saas.UserWithTickets,
		SameForAll: map[string]func([]repository.Key, repository.Entity) []repository.Key{
			"reporter":     nil, // the user itself
			"organization": one(func(u *saas.User) (repository.Key, error) { return saas.OrganizationKey(u.OrgID) }),
		}}
	// TicketHistory is a ticket's versions, newest first: one Query per ticket, the histories of a
	// level read together.
	TicketHistory  = &Field{Type: "Ticket", Name: "history", Kind: List, Of: "TicketVersion", Reads: []Read{saas.VersionsOfTicket}}
	CustomerOrders = &Field{Type: "Customer", Name: "orders", Kind: List, Of: "Order", Reads: []Read{commerce.OrdersOfCustomer},
		Filters: Filters{After: "placedAfter", Before: "placedBefore"}, Combined: &commerce.CustomerWithOrders, Primes: []string{"items"},
		By: "status", Variant: CustomerOrdersByStatus}
	// CustomerOrdersByStatus is a customer's orders with a status: from GSI1, without their items,
	// which the level looks up together (Order.items) when every list of the level is back.
	CustomerOrdersByStatus = &Field{Type: "Customer", Name: "orders", Kind: List, Of: "Order",
		Reads:   []Read{commerce.OrdersOfCustomerStatus},
		Filters: Filters{Status: "status", After: "placedAfter", Before: "placedBefore"}}
	OrderItems = &Field{Type: "Order", Name: "items", Kind: Items, Of: "OrderItem", Reads: []Read{commerce.OrderItemByKey},
		Combined: &commerce.OrderWithItems, OneParent: true, MaxKeys: repository.MaxOrderLines,
		Keys: func(dst []repository.Key, e repository.Entity) []repository.Key {
			if o, ok := e.(*commerce.Order); ok {
				return append(dst, o.ItemKeys()...)
			}
			return dst
		}}
	DepartmentEmployees = &Field{Type: "Department", Name: "employees", Kind: List, Of: "Employee",
		Reads: []Read{hr.MembersOfDepartment, hr.MemberByKey}, GathersLevel: true, SameForAll: parentItself("department")}
	EmployeeReports = &Field{Type: "Employee", Name: "directReports", Kind: List, Of: "Employee",
		Reads: []Read{hr.ReportsOfManager, hr.ReportByKey}, GathersLevel: true, SameForAll: parentItself("manager")}
	EmployeeMentees = &Field{Type: "Employee", Name: "mentees", Kind: List, Of: "Employee",
		Reads: []Read{hr.MenteesOfMentor, hr.ReportByKey}, GathersLevel: true, SameForAll: parentItself("mentor")}
)

// The catalog's child lists: a product's stock, one Query of its partition (and of a product asked
// for by ID, that Query reads the product too: Combined), and its order lines from GSI1. Their
// elements' product is the list's parent, read already: its lookup is answered from the loaders'
// cache, at no call, though the plan counts its round.
var (
	ProductInventory = &Field{Type: "Product", Name: "inventory", Kind: List, Of: "Inventory", Reads: []Read{catalog.InventoryOfProduct},
		MaxKeys: catalog.MaxWarehousesPerProduct, Combined: &catalog.ProductWithInventory}
	ProductOrderItems = &Field{Type: "Product", Name: "orderItems", Kind: List, Of: "OrderItem", Reads: []Read{commerce.OrderItemsOfProduct}}
)

// The lists of an account rep: its customers (GSI1), the orders of its customers (GSI2).
var (
	EmployeeAccounts      = &Field{Type: "Employee", Name: "accounts", Kind: List, Of: "Customer", Reads: []Read{commerce.AccountsOfRep}}
	EmployeeAccountOrders = &Field{Type: "Employee", Name: "accountOrders", Kind: List, Of: "Order", Reads: []Read{commerce.OrdersOfRep},
		Filters: Filters{Status: "status", After: "placedAfter", Before: "placedBefore"}}
)

// WarehouseEmployees is a warehouse's employees: the inverse of their warehouse relations, one
// Query per warehouse, then the level's employees in one batch, like a department's.
var WarehouseEmployees = &Field{Type: "Warehouse", Name: "employees", Kind: List, Of: "Employee",
	Reads: []Read{hr.EmployeesOfWarehouse, hr.WarehouseEmployeeByKey}, GathersLevel: true}

// parentItself is the SameForAll of an inverse-relation list: the relation its Query reads is
// each element's own, and it points at the list's parent.
func parentItself(relation string) map[string]func([]repository.Key, repository.Entity) []repository.Key {
	return map[string]func([]repository.Key, repository.Entity) []repository.Key{relation: nil}
}

// fieldKey names a field of an object type.
type fieldKey struct{ typ, name string }

// tableOf indexes rows by type and field.
func tableOf(rows ...*Field) map[fieldKey]*Field {
	t := make(map[fieldKey]*Field, len(rows))
	for _, f := range rows {
		t[fieldKey{f.Type, f.Name}] = f
	}
	return t
}

// FieldOf is the row of field name of object type typ, nil for a field that reads nothing (a
// scalar, an edge's cursor).
func FieldOf(typ, name string) *Field { return Table[fieldKey{typ, name}] }

// one adapts a single-key function of an entity type T to a Keys function.
func one[T repository.Entity](key func(T) (repository.Key, error)) func([]repository.Key, repository.Entity) []repository.Key {
	return func(dst []repository.Key, e repository.Entity) []repository.Key {
		t, ok := e.(T)
		if !ok {
			return dst
		}
		k, err := key(t)
		if err != nil {
			return dst
		}
		return append(dst, k)
	}
}
