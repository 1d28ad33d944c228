package model

import (
	"context"

	"singletable/auth"
	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// The node descriptors, one per schema type implementing Node (see NodeType). Their Name is the
// schema's type name; the GetID methods of the GraphQL objects encode their PartsOf.

// UserRef is a user's reference: the organization it belongs to and its id.
type UserRef struct{ Org, ID string }

// OrderRef is an order's reference: the customer who placed it and its id.
type OrderRef struct{ Customer, ID string }

// id is the reference of a type whose ID has one part, its id.
func id(parts []string) string { return parts[0] }

// Organizations: an organization's ID is its id; it is its own tenant.
var Organizations = NodeType[*saas.Organization, *Organization, string]{
	Name: "Organization", Kind: "organization", Parts: []string{"organization"},
	PartsOf: func(o *saas.Organization) []string { return []string{o.ID} },
	Ref:     id, Key: saas.OrganizationKey, Scope: auth.OrgScope,
	Wrap: func(o *saas.Organization) *Organization { return &Organization{Organization: o} },
	Stub: func(id string) *saas.Organization { return &saas.Organization{ID: id} },
}

// Users: a user's ID carries its organization, which is its key's partition and its tenant.
var Users = NodeType[*saas.User, *User, UserRef]{
	Name: "User", Kind: "user", Parts: []string{"organization", "user"},
	PartsOf: func(u *saas.User) []string { return []string{u.OrgID, u.ID} },
	Ref:     func(p []string) UserRef { return UserRef{Org: p[0], ID: p[1]} },
	Key:     func(r UserRef) (repository.Key, error) { return saas.UserKey(r.Org, r.ID) },
	Scope:   func(r UserRef) auth.Scope { return auth.OrgScope(r.Org) },
	Wrap:    func(u *saas.User) *User { return &User{User: u} },
	Stub:    func(r UserRef) *saas.User { return &saas.User{OrgID: r.Org, ID: r.ID} },
}

// TicketRef is a ticket's reference: the organization it belongs to and its id.
type TicketRef struct{ Org, ID string }

// Tickets: a ticket's ID carries its organization, the tenant its key's sort key names (so a
// ticket is only ever looked up with its tenant). IDs handed out before it did carry the ticket
// alone; they are still accepted (completeTicket).
var Tickets = NodeType[*saas.Ticket, *Ticket, TicketRef]{
	Name: "Ticket", Kind: "ticket", Parts: []string{"organization", "ticket"},
	PartsOf: func(t *saas.Ticket) []string { return []string{t.OrgID, t.ID} },
	Ref:     func(p []string) TicketRef { return TicketRef{Org: p[0], ID: p[1]} },
	Key:     func(r TicketRef) (repository.Key, error) { return saas.TicketKey(r.Org, r.ID) },
	Scope:   func(r TicketRef) auth.Scope { return auth.OrgScope(r.Org) },
	Wrap:    func(t *saas.Ticket) *Ticket { return &Ticket{Ticket: t} },
	Stub:    func(r TicketRef) *saas.Ticket { return &saas.Ticket{OrgID: r.Org, ID: r.ID} },

	LegacyParts: []string{"ticket"},
	Complete:    completeTicket,
}

// TicketFinder finds a ticket by its id alone (the loaders are one): what completing a legacy
// ticket ID takes for a caller who sees every organization.
type TicketFinder interface {
	TicketByID(ctx context.Context, id string) (*saas.Ticket, error)
}

// completeTicket completes a legacy ticket ID (its id alone) for the caller. A caller narrowed to
// one organization can only ever see the ticket in that one, so the ID completes with it, and the
// lookup by key finds the ticket only if it is theirs: nothing of another tenant's ticket is read.
// A caller who sees every organization (admin) finds the ticket's organization with one Query of
// its partition (TicketFinder). Callers without an organization get NOT_FOUND.
func completeTicket(ctx context.Context, r KeyReader, parts []string) ([]string, error) {
	org, narrowed := auth.Caller(ctx).OwnOrganization()
	switch {
	case narrowed && org != "":
		return []string{org, parts[0]}, nil
	case narrowed:
		return nil, auth.Hidden("ticket")
	}
	f, ok := r.(TicketFinder)
	if !ok {
		return nil, auth.Hidden("ticket")
	}
	t, err := f.TicketByID(ctx, parts[0])
	if err != nil {
		return nil, err
	}
	return []string{t.OrgID, t.ID}, nil
}

// Customers: a customer's ID is its id; it is its own tenant.
var Customers = NodeType[*commerce.Customer, *Customer, string]{
	Name: "Customer", Kind: "customer", Parts: []string{"customer"},
	PartsOf: func(c *commerce.Customer) []string { return []string{c.ID} },
	Ref:     id, Key: commerce.CustomerKey, Scope: auth.CustomerScope,
	Wrap: func(c *commerce.Customer) *Customer { return &Customer{Customer: c} },
	Stub: func(id string) *commerce.Customer { return &commerce.Customer{ID: id} },
}

// Orders: an order's ID carries its customer, whose item collection holds it.
var Orders = NodeType[*commerce.Order, *Order, OrderRef]{
	Name: "Order", Kind: "order", Parts: []string{"customer", "order"},
	PartsOf: func(o *commerce.Order) []string { return []string{o.CustomerID, o.ID} },
	Ref:     func(p []string) OrderRef { return OrderRef{Customer: p[0], ID: p[1]} },
	Key:     func(r OrderRef) (repository.Key, error) { return commerce.OrderKey(r.Customer, r.ID) },
	Scope:   func(r OrderRef) auth.Scope { return auth.CustomerScope(r.Customer) },
	Wrap:    func(o *commerce.Order) *Order { return &Order{Order: o} },
	Stub:    func(r OrderRef) *commerce.Order { return &commerce.Order{CustomerID: r.Customer, ID: r.ID} },
}

// Products are seen by every commerce role (a customer too); Warehouses by sales and HR. Both
// are one tenant each, so their IDs are their ids.
var (
	Products = NodeType[*catalog.Product, *Product, string]{
		Name: "Product", Kind: "product", Parts: []string{"product"},
		PartsOf: func(p *catalog.Product) []string { return []string{p.ID} },
		Ref:     id, Key: catalog.ProductKey, Scope: catalogScope[string],
		Wrap: func(p *catalog.Product) *Product { return &Product{Product: p} },
		Stub: func(id string) *catalog.Product { return &catalog.Product{ID: id} },
	}
	Warehouses = NodeType[*catalog.Warehouse, *Warehouse, string]{
		Name: "Warehouse", Kind: "warehouse", Parts: []string{"warehouse"},
		PartsOf: func(w *catalog.Warehouse) []string { return []string{w.ID} },
		Ref:     id, Key: catalog.WarehouseKey, Scope: warehouses[string],
		Wrap: func(w *catalog.Warehouse) *Warehouse { return &Warehouse{Warehouse: w} },
		Stub: func(id string) *catalog.Warehouse { return &catalog.Warehouse{ID: id} },
	}
)

func catalogScope[R any](R) auth.Scope { return auth.CatalogScope() }
func warehouses[R any](R) auth.Scope   { return auth.WarehouseScope() }

// Departments, Employees and Locations belong to HR, one tenant.
var (
	Departments = NodeType[*hr.Department, *Department, string]{
		Name: "Department", Kind: "department", Parts: []string{"department"},
		PartsOf: func(d *hr.Department) []string { return []string{d.ID} },
		Ref:     id, Key: hr.DepartmentKey, Scope: hrScope[string],
		Wrap: func(d *hr.Department) *Department { return &Department{Department: d} },
		Stub: func(id string) *hr.Department { return &hr.Department{ID: id} },
	}
	Employees = NodeType[*hr.Employee, *Employee, string]{
		Name: "Employee", Kind: "employee", Parts: []string{"employee"},
		PartsOf: func(e *hr.Employee) []string { return []string{e.ID} },
		Ref:     id, Key: hr.EmployeeKey, Scope: hrScope[string],
		Wrap: func(e *hr.Employee) *Employee { return &Employee{Employee: e} },
		Stub: func(id string) *hr.Employee { return &hr.Employee{ID: id} },
	}
	// A location's key is its country's partition and a hierarchical sort key, so its ID carries
	// the whole key: country, state, city, postal code and id.
	Locations = NodeType[*hr.Location, *Location, hr.LocationRef]{
		Name: "Location", Kind: "location", Parts: []string{"country", "state", "city", "postalCode", "location"},
		PartsOf: func(l *hr.Location) []string {
			r := l.Ref()
			return []string{r.Country, r.State, r.City, r.PostalCode, r.ID}
		},
		Ref: func(p []string) hr.LocationRef {
			return hr.LocationRef{Country: p[0], State: p[1], City: p[2], PostalCode: p[3], ID: p[4]}
		},
		Key: hr.LocationKey, Scope: hrScope[hr.LocationRef],
		Wrap: func(l *hr.Location) *Location { return &Location{Location: l} },
		Stub: func(r hr.LocationRef) *hr.Location {
			return &hr.Location{Country: r.Country, State: r.State, City: r.City, PostalCode: r.PostalCode, ID: r.ID}
		},
	}
)

func hrScope[R any](R) auth.Scope { return auth.HRScope() }

// Nodes is the registry: every node descriptor.
var Nodes = []AnyNode{Organizations, Users, Tickets, Customers, Orders, Departments, Employees, Locations, Products, Warehouses}

// nodeByName is Nodes by type name (DecodeNode).
var nodeByName = func() map[string]AnyNode {
	m := make(map[string]AnyNode, len(Nodes))
	for _, d := range Nodes {
		m[d.TypeName()] = d
	}
	return m
}()

// NodeNamed is the descriptor of the node type named typ.
func NodeNamed(typ string) (AnyNode, bool) {
	d, ok := nodeByName[typ]
	return d, ok
}
