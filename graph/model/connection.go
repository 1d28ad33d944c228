package model

import (
	"singletable/repository"
	"singletable/repository/saas"
)

// Edges and PageInfo are hand-written (gqlgen autobinds to them) so that their cursor fields are
// methods: gqlgen calls a field's method only when the operation selects the field, and sealing a
// cursor (encryption and MAC, see repository.Cursor) is the largest cost the API adds to a page
// of items. Operations that do not page never pay it.

// Cursored gives an edge its `cursor` field.
type Cursored struct {
	// Position is the edge's place in its list.
	Position repository.Cursor
}

// Cursor is the edge's opaque cursor, sealed now.
func (c Cursored) Cursor() string { return c.Position.String() }

// PageInfo describes a page of a connection (Relay).
type PageInfo struct {
	HasNextPage bool
	// True when the page was asked for with `after`: earlier items exist.
	HasPreviousPage bool
	// Start and End are the positions of the first and last edge; Empty when the page has none.
	Start, End repository.Cursor
	Empty      bool
}

// StartCursor is the cursor of the first edge, or null for an empty page.
func (p *PageInfo) StartCursor() *string { return p.cursor(p.Start) }

// EndCursor is the cursor of the last edge, or null for an empty page.
func (p *PageInfo) EndCursor() *string { return p.cursor(p.End) }

func (p *PageInfo) cursor(c repository.Cursor) *string {
	if p.Empty {
		return nil
	}
	s := c.String()
	return &s
}

// OrganizationEdge is one organization of a connection.
type OrganizationEdge struct {
	Cursored
	Node *Organization
}

// UserEdge is one user of a connection.
type UserEdge struct {
	Cursored
	Node *User
}

// TicketEdge is one ticket of a connection.
type TicketEdge struct {
	Cursored
	Node *Ticket
}

// DepartmentEdge is one department of a connection.
type DepartmentEdge struct {
	Cursored
	Node *Department
}

// EmployeeEdge is one employee of a connection.
type EmployeeEdge struct {
	Cursored
	Node *Employee
}

// LocationEdge is one location of a connection.
type LocationEdge struct {
	Cursored
	Node *Location
}

// CustomerEdge is one customer of a connection.
type CustomerEdge struct {
	Cursored
	Node *Customer
}

// OrderEdge is one order of a connection.
type OrderEdge struct {
	Cursored
	Node *Order
}

// TicketVersionEdge is one version of a ticket's history.
type TicketVersionEdge struct {
	Cursored
	Node *saas.TicketVersion
}

// The connections with a totalCount are hand-written (gqlgen binds to them) so that totalCount is
// a method: the count comes from the counters of the list's parent, read with the parent (see
// repository.Count), and becomes a value only when the operation selects it.

// Total is a connection's totalCount: the count its parent's counters keep, when known.
type Total struct{ Count repository.Count }

// TotalCount is the number of items of the whole list, or null when no counter says it.
func (t Total) TotalCount() *int {
	if !t.Count.Known {
		return nil
	}
	n := t.Count.N
	return &n
}

// SetCount sets the count the connection's totalCount says (its connection is built first, from
// the page alone).
func (t *Total) SetCount(c repository.Count) { t.Count = c }

// UserConnection is a page of an organization's users.
type UserConnection struct {
	Edges    []*UserEdge
	PageInfo *PageInfo
	Total
}

// TicketConnection is a page of a user's tickets.
type TicketConnection struct {
	Edges    []*TicketEdge
	PageInfo *PageInfo
	Total
}

// EmployeeConnection is a page of a department's employees, a manager's direct reports, an
// employee's mentees, or employees found through an index.
type EmployeeConnection struct {
	Edges    []*EmployeeEdge
	PageInfo *PageInfo
	Total
}

// OrderConnection is a page of a customer's orders, or of the orders of one status.
type OrderConnection struct {
	Edges    []*OrderEdge
	PageInfo *PageInfo
	Total
}
