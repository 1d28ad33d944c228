package model

import (
	"singletable/repository/commerce"
	"singletable/repository/saas"
)

// The events of the subscriptions and the nodes of the change pulls are hand-written so that
// their `cursor` is a method (Cursored): sealed only when the operation selects it.

// TicketChange is the GraphQL TicketChange.
type TicketChange struct {
	Cursored
	Kind           ChangeKind
	Ticket         *Ticket
	PreviousStatus *saas.TicketStatus
}

// OrderChange is the GraphQL OrderChange.
type OrderChange struct {
	Cursored
	Kind           ChangeKind
	Order          *Order
	PreviousStatus *commerce.OrderStatus
}

// EmployeeChange is the GraphQL EmployeeChange.
type EmployeeChange struct {
	Cursored
	Kind     ChangeKind
	Employee *Employee
}

// TicketChangeEdge is one change of a ticketChanges page.
type TicketChangeEdge struct {
	Cursored
	Node *TicketChange
}

// OrderChangeEdge is one change of an orderChanges page.
type OrderChangeEdge struct {
	Cursored
	Node *OrderChange
}

// EmployeeChangeEdge is one change of an employeeChanges page.
type EmployeeChangeEdge struct {
	Cursored
	Node *EmployeeChange
}

// InventoryChangeEdge is one change of an inventoryChanges page.
type InventoryChangeEdge struct {
	Cursored
	Node *InventoryChange
}
