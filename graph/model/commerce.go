package model

import (
	"singletable/repository"
	"singletable/repository/commerce"
)

// Customer is the GraphQL Customer: the stored entity plus, when the customer was read together
// with its newest orders (one Query of its item collection), that first page of orders.
type Customer struct {
	*commerce.Customer
	// OrdersAhead is the page of orders read with the customer, for the `orders` field whose
	// response key is OrdersAheadFor (the one the plan read with it). Nil when none was.
	OrdersAhead    *repository.Page[*commerce.Order]
	OrdersAheadFor string
}

// IsNode marks Customer as a Node.
func (Customer) IsNode() {}

// GetID is the global ID.
func (c Customer) GetID() string { return Customers.ID(c.Customer) }

// MailingAddresses are the customer's addresses, with absent optional parts as null.
func (c Customer) MailingAddresses() []*MailingAddress {
	out := make([]*MailingAddress, len(c.Addresses))
	for i, a := range c.Addresses {
		out[i] = &MailingAddress{
			Label: a.Label, Line1: a.Line1, Line2: optional(a.Line2), City: a.City,
			State: optional(a.State), PostalCode: optional(a.PostalCode), Country: a.Country,
		}
	}
	return out
}

// MailingAddress is the GraphQL MailingAddress: the stored address with its optional parts
// (empty strings in the item) as null.
type MailingAddress struct {
	Label      string
	Line1      string
	Line2      *string
	City       string
	State      *string
	PostalCode *string
	Country    string
}

// Address converts an address input to the stored form.
func (in *MailingAddressInput) Address() commerce.MailingAddress {
	return commerce.MailingAddress{
		Label: in.Label, Line1: in.Line1, Line2: deref(in.Line2), City: in.City,
		State: deref(in.State), PostalCode: deref(in.PostalCode), Country: in.Country,
	}
}

// Order is the GraphQL Order. Its global ID carries the customer's id too, because the order
// lives in its customer's item collection.
type Order struct {
	*commerce.Order
}

// IsNode marks Order as a Node.
func (Order) IsNode() {}

// GetID is the global ID.
func (o Order) GetID() string { return Orders.ID(o.Order) }

// OrderItem is the GraphQL OrderItem (not a Node: it is reached through its order).
type OrderItem struct {
	*commerce.OrderItem
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
