package model

import "singletable/repository"

// Organization is the GraphQL Organization: the stored entity plus, when the organization was
// read together with its users (AP2), that first page of users.
type Organization struct {
	*repository.Organization
	// UsersAhead is the page of users read with the organization, valid for `users` asked with
	// first = UsersAheadFirst and no `after`. Nil when the users were not read ahead.
	UsersAhead      *repository.Page[*repository.User]
	UsersAheadFirst int
}

// IsNode marks Organization as a Node.
func (Organization) IsNode() {}

// GetID is the global ID.
func (o Organization) GetID() string { return Organizations.ID(o.Organization) }

// User is the GraphQL User: the stored entity plus, when the user was read together with its
// newest tickets (AP5), that first page of tickets.
type User struct {
	*repository.User
	TicketsAhead      *repository.Page[*repository.Ticket]
	TicketsAheadFirst int
}

// IsNode marks User as a Node.
func (User) IsNode() {}

// GetID is the global ID.
func (u User) GetID() string { return Users.ID(u.User) }

// Ticket is the GraphQL Ticket.
type Ticket struct {
	*repository.Ticket
}

// IsNode marks Ticket as a Node.
func (Ticket) IsNode() {}

// GetID is the global ID.
func (t Ticket) GetID() string { return Tickets.ID(t.Ticket) }
