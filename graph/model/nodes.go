package model

import (
	"singletable/auth"
	"singletable/repository"
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
var Organizations = NodeType[*repository.Organization, *Organization, string]{
	Name: "Organization", Kind: "organization", Parts: []string{"organization"},
	PartsOf: func(o *repository.Organization) []string { return []string{o.ID} },
	Ref:     id, Key: repository.OrganizationKey, Scope: auth.OrgScope,
	Wrap: func(o *repository.Organization) *Organization { return &Organization{Organization: o} },
}

// Users: a user's ID carries its organization, which is its key's partition and its tenant.
var Users = NodeType[*repository.User, *User, UserRef]{
	Name: "User", Kind: "user", Parts: []string{"organization", "user"},
	PartsOf: func(u *repository.User) []string { return []string{u.OrgID, u.ID} },
	Ref:     func(p []string) UserRef { return UserRef{Org: p[0], ID: p[1]} },
	Key:     func(r UserRef) (repository.Key, error) { return repository.UserKey(r.Org, r.ID) },
	Scope:   func(r UserRef) auth.Scope { return auth.OrgScope(r.Org) },
	Wrap:    func(u *repository.User) *User { return &User{User: u} },
}

// Tickets: a ticket's ID carries only the ticket (its key is its own partition), so its tenant is
// known after the read, from the item's organization.
var Tickets = NodeType[*repository.Ticket, *Ticket, string]{
	Name: "Ticket", Kind: "ticket", Parts: []string{"ticket"},
	PartsOf: func(t *repository.Ticket) []string { return []string{t.ID} },
	Ref:     id, Key: repository.TicketKey,
	Scope:     func(string) auth.Scope { return auth.SomeOrgScope() },
	ItemScope: func(t *repository.Ticket) auth.Scope { return auth.OrgScope(t.OrgID) },
	Wrap:      func(t *repository.Ticket) *Ticket { return &Ticket{Ticket: t} },
}

// Customers: a customer's ID is its id; it is its own tenant.
var Customers = NodeType[*repository.Customer, *Customer, string]{
	Name: "Customer", Kind: "customer", Parts: []string{"customer"},
	PartsOf: func(c *repository.Customer) []string { return []string{c.ID} },
	Ref:     id, Key: repository.CustomerKey, Scope: auth.CustomerScope,
	Wrap: func(c *repository.Customer) *Customer { return &Customer{Customer: c} },
}

// Orders: an order's ID carries its customer, whose item collection holds it.
var Orders = NodeType[*repository.Order, *Order, OrderRef]{
	Name: "Order", Kind: "order", Parts: []string{"customer", "order"},
	PartsOf: func(o *repository.Order) []string { return []string{o.CustomerID, o.ID} },
	Ref:     func(p []string) OrderRef { return OrderRef{Customer: p[0], ID: p[1]} },
	Key:     func(r OrderRef) (repository.Key, error) { return repository.OrderKey(r.Customer, r.ID) },
	Scope:   func(r OrderRef) auth.Scope { return auth.CustomerScope(r.Customer) },
	Wrap:    func(o *repository.Order) *Order { return &Order{Order: o} },
}

// Departments, Employees and Locations belong to HR, one tenant.
var (
	Departments = NodeType[*repository.Department, *Department, string]{
		Name: "Department", Kind: "department", Parts: []string{"department"},
		PartsOf: func(d *repository.Department) []string { return []string{d.ID} },
		Ref:     id, Key: repository.DepartmentKey, Scope: hr[string],
		Wrap: func(d *repository.Department) *Department { return &Department{Department: d} },
	}
	Employees = NodeType[*repository.Employee, *Employee, string]{
		Name: "Employee", Kind: "employee", Parts: []string{"employee"},
		PartsOf: func(e *repository.Employee) []string { return []string{e.ID} },
		Ref:     id, Key: repository.EmployeeKey, Scope: hr[string],
		Wrap: func(e *repository.Employee) *Employee { return &Employee{Employee: e} },
	}
	// A location's key is its country's partition and a hierarchical sort key, so its ID carries
	// the whole key: country, state, city, postal code and id.
	Locations = NodeType[*repository.Location, *Location, repository.LocationRef]{
		Name: "Location", Kind: "location", Parts: []string{"country", "state", "city", "postalCode", "location"},
		PartsOf: func(l *repository.Location) []string {
			r := l.Ref()
			return []string{r.Country, r.State, r.City, r.PostalCode, r.ID}
		},
		Ref: func(p []string) repository.LocationRef {
			return repository.LocationRef{Country: p[0], State: p[1], City: p[2], PostalCode: p[3], ID: p[4]}
		},
		Key: repository.LocationKey, Scope: hr[repository.LocationRef],
		Wrap: func(l *repository.Location) *Location { return &Location{Location: l} },
	}
)

func hr[R any](R) auth.Scope { return auth.HRScope() }

// Nodes is the registry: every node descriptor.
var Nodes = []AnyNode{Organizations, Users, Tickets, Customers, Orders, Departments, Employees, Locations}

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
