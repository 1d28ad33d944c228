package model

import (
	"singletable/repository"
	"singletable/repository/saas"
)

// Organization is the GraphQL Organization: the stored entity plus, when the organization was
// read together with its users (AP2), that first page of users.
type Organization struct {
	*saas.Organization
	// UsersAhead is the page of users read with the organization, for the `users` field whose
	// response key is UsersAheadFor (the one the plan read with it). Nil when none was.
	UsersAhead    *repository.Page[*saas.User]
	UsersAheadFor string
}

// IsNode marks Organization as a Node.
func (Organization) IsNode() {}

// GetID is the global ID.
func (o Organization) GetID() string { return Organizations.ID(o.Organization) }

// User is the GraphQL User: the stored entity plus, when the user was read together with its
// newest tickets (AP5), that first page of tickets.
type User struct {
	*saas.User
	// TicketsAhead is the page read with the user, for the `tickets` field whose response key is
	// TicketsAheadFor.
	TicketsAhead    *repository.Page[*saas.Ticket]
	TicketsAheadFor string
}

// IsNode marks User as a Node.
func (User) IsNode() {}

// GetID is the global ID.
func (u User) GetID() string { return Users.ID(u.User) }

// Ticket is the GraphQL Ticket.
type Ticket struct {
	*saas.Ticket
}

// IsNode marks Ticket as a Node.
func (Ticket) IsNode() {}

// GetID is the global ID.
func (t Ticket) GetID() string { return Tickets.ID(t.Ticket) }
