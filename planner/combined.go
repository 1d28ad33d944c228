package planner

import (
	"context"
	"encoding/json"

	"github.com/99designs/gqlgen/graphql"

	"singletable/graph/model"
	"singletable/repository"
)

// A Combined read is a child list that one Query reads together with its parent, because the
// parent item sorts at one end of the list's item collection: an organization and its first
// users (AP2), a user and its newest tickets (AP5), a customer and its newest orders with their
// items (AP15–AP17), an order and its items (AP18 + AP17). Only the first page, without filters,
// has that shape; a list asked for in another form is read by its own resolver.
type Combined struct {
	Parent, List string
	// filters are the list's arguments that must be absent (besides `after`).
	filters []string
	// paged lists have `first`; a plain list (an order's items) is read whole, and its keys
	// follow from its parent, so that several parents' lists are cheaper looked up by key in one
	// batch than read by one Query each.
	paged bool
}

// PerParentOnly reports whether the combined read is only worth it for a parent asked for alone
// (an order's items): nodes(ids:) looks several parents' lists up by key instead.
func (c Combined) PerParentOnly() bool { return !c.paged }

// The combined reads, by parent type and list field.
var (
	OrganizationUsers = Combined{Parent: model.Organizations.Name, List: "users", paged: true}
	UserTickets       = Combined{Parent: model.Users.Name, List: "tickets", paged: true, filters: []string{"status", "createdAfter", "createdBefore"}}
	CustomerOrders    = Combined{Parent: model.Customers.Name, List: "orders", paged: true, filters: []string{"status", "placedAfter", "placedBefore"}}
	OrderItems        = Combined{Parent: model.Orders.Name, List: "items"}
)

// combinedReads is every combined read; at most one per parent type.
var combinedReads = []Combined{OrganizationUsers, UserTickets, CustomerOrders, OrderItems}

// CombinedFor is the combined read of objects of type typ, if any.
func CombinedFor(typ string) (Combined, bool) {
	for _, c := range combinedReads {
		if c.Parent == typ {
			return c, true
		}
	}
	return Combined{}, false
}

// first is the page size a list field with these arguments asks for, if it has the combined
// form; 0 otherwise, and for a page size out of range (the list's own resolver reports that).
// A plain list answers 1.
func (c Combined) first(args map[string]any) int {
	if !c.paged {
		return 1
	}
	if args["after"] != nil {
		return 0
	}
	for _, f := range c.filters {
		if args[f] != nil {
			return 0
		}
	}
	return FirstArg(args)
}

// First is the page size of the combined read s (on objects of c.Parent) asks for: that of the
// first c.List field in the combined form, 0 when there is none.
func (c Combined) First(s Selection) int {
	if s.typ != c.Parent {
		return 0
	}
	for _, f := range s.all(c.List) {
		if n := c.first(s.args(f)); n > 0 {
			return n
		}
	}
	return 0
}

// FirstOf is the page size a list field with arguments args asks for if it has the combined
// form (no `after`, no filters), else 0: the form a list started ahead for a whole level takes.
func (c Combined) FirstOf(args map[string]any) int {
	if args == nil {
		return 0
	}
	return c.first(args)
}

// Answers reports whether a page read ahead with page size aheadFirst (0: none) answers the
// current field, the list c.List being resolved: the same page size and the combined form.
func (c Combined) Answers(ctx context.Context, aheadFirst int) bool {
	fc := graphql.GetFieldContext(ctx)
	if aheadFirst == 0 || fc == nil || fc.Field.Field == nil || !graphql.HasOperationContext(ctx) {
		return false
	}
	return c.first(fc.Field.ArgumentMap(graphql.GetOperationContext(ctx).Variables)) == aheadFirst
}

// IntArg reads an Int argument of a collected field (after variables and defaults).
func IntArg(args map[string]any, name string) (int, bool) {
	switch v := args[name].(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case int32:
		return int(v), true
	case float64:
		return int(v), v == float64(int(v))
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	}
	return 0, false
}

// FirstArg is an argument map's `first` if it is a valid page size, the default when absent, and
// 0 when out of range (the field's own resolver then reports the error).
func FirstArg(args map[string]any) int {
	n, ok := IntArg(args, "first")
	if !ok {
		return repository.DefaultPageSize
	}
	if n < 1 || n > repository.MaxPageSize {
		return 0
	}
	return n
}
