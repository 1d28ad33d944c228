package server

import (
	"time"

	"singletable/graph"
	"singletable/repository"
)

// complexity prices each list field at `first` times its children, so that the complexity limit
// bounds the number of items (and so the DynamoDB reads) an operation can ask for. Fields not
// listed here cost 1 plus their children.
func complexity() graph.ComplexityRoot {
	var c graph.ComplexityRoot
	c.Query.Nodes = func(child int, ids []string) int { return 1 + len(ids)*child }
	c.Query.Organizations = func(child int, first *int, _ *string) int { return list(child, first) }
	c.Organization.Users = func(child int, first *int, _ *string) int { return list(child, first) }
	c.User.Tickets = func(child int, first *int, _ *string, _ *repository.TicketStatus, _, _ *time.Time) int {
		return list(child, first)
	}
	c.Query.Customers = func(child int, first *int, _ *string) int { return list(child, first) }
	c.Customer.Orders = func(child int, first *int, _ *string, _ *repository.OrderStatus, _, _ *time.Time) int {
		return list(child, first)
	}
	c.Query.OrdersByStatus = func(child int, _ repository.OrderStatus, _, _ *time.Time, first *int, _ *string) int {
		return list(child, first)
	}
	hrComplexity(&c)
	return c
}

// list is the cost of a connection: its page size times the cost of one edge, plus one.
func list(child int, first *int) int {
	n := repository.DefaultPageSize
	if first != nil && *first > 0 {
		n = min(*first, repository.MaxPageSize)
	}
	return 1 + n*child
}
