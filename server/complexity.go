package server

import (
	"time"

	"singletable/graph"
	"singletable/repository"
)

// queryCost is the price of one DynamoDB Query in complexity points, where one resolved field or
// item costs 1: a Query is a round trip that reads up to a page of items. With the default limit
// of 20000 an operation can make at most 400 Queries, however it spreads them over aliases.
const queryCost = 50

// complexity prices each field by the DynamoDB calls it can make and the items it can return: a
// connection costs one Query plus `first` times its children (and, nested, that is multiplied by
// the parent's page size: one Query per parent); ordersByStatus costs one Query per shard of the
// order status index. Lookups by key are batched per level into BatchGetItem and cost 1. Fields
// not listed here cost 1 plus their children.
func complexity(shards int) graph.ComplexityRoot {
	var c graph.ComplexityRoot
	c.Query.Nodes = func(child int, ids []string) int { return 1 + len(ids)*child }
	c.Query.Organizations = func(child int, first *int, _ *string) int { return list(child, first) }
	c.Organization.Users = func(child int, first *int, _ *string) int { return list(child, first) }
	c.User.Tickets = func(child int, first *int, _ *string, _ *repository.TicketStatus, _, _ *time.Time) int {
		return list(child, first)
	}
	c.Ticket.History = func(child int, first *int, _ *string) int { return list(child, first) }
	c.Query.Customers = func(child int, first *int, _ *string) int { return list(child, first) }
	c.Customer.Orders = func(child int, first *int, _ *string, _ *repository.OrderStatus, _, _ *time.Time) int {
		return list(child, first)
	}
	c.Query.OrdersByStatus = func(child int, _ repository.OrderStatus, _, _ *time.Time, first *int, _ *string) int {
		return (shards-1)*queryCost + list(child, first)
	}
	hrComplexity(&c)
	return c
}

// list is the cost of a connection: its Query plus its page size times the cost of one edge.
func list(child int, first *int) int {
	n := repository.DefaultPageSize
	if first != nil && *first > 0 {
		n = min(*first, repository.MaxPageSize)
	}
	return queryCost + n*child
}
