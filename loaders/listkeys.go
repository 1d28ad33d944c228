package loaders

import (
	"time"

	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// The keys of the list loaders. Each is a comparable struct built only by its constructor, which
// normalises what two spellings of the same read may differ in (a page size left out or given as
// the default, a time in another zone or with a monotonic clock reading, an absent filter), so
// that equal reads are equal keys. A list's key holds the Level of its elements: what they need
// once read is part of the read.

// pageKey is a page's arguments: first 0 (not given) is the default page size.
type pageKey struct {
	first int
	after string
}

func pageOf(a repository.PageArgs) pageKey {
	return pageKey{first: pageSize(a.First), after: a.After}
}

func (p pageKey) args() repository.PageArgs {
	return repository.PageArgs{First: p.first, After: p.after}
}

// pageSize is the page size a list key uses: 0 (not given) is the default.
func pageSize(first int) int {
	if first == 0 {
		return repository.DefaultPageSize
	}
	return first
}

// instant is an optional point in time, compared by the instant alone.
type instant struct {
	set bool
	ns  int64
}

func instantOf(t *time.Time) instant {
	if t == nil {
		return instant{}
	}
	return instant{set: true, ns: t.UnixNano()}
}

func (i instant) time() *time.Time {
	if !i.set {
		return nil
	}
	t := time.Unix(0, i.ns).UTC()
	return &t
}

// optional is an optional string-like value.
type optional[T ~string] struct {
	set bool
	v   T
}

func optionalOf[T ~string](p *T) optional[T] {
	if p == nil {
		return optional[T]{}
	}
	return optional[T]{set: true, v: *p}
}

func (o optional[T]) ptr() *T {
	if !o.set {
		return nil
	}
	v := o.v
	return &v
}

// listPage is what every list key holds besides what names its list: the page asked for and the
// Level of the list's elements. A root list without arguments (organizations, customers,
// departments, products, warehouses) is keyed by it alone.
type listPage struct {
	page  pageKey
	level Level
}

func listPageOf(args repository.PageArgs, level Level) listPage {
	return listPage{page: pageOf(args), level: level}
}

// listLevel is the Level of the list's elements: what readLevel and rootRead do once they are read.
func (k listPage) listLevel() Level { return k.level }

// A listKey is the key of a list whose elements have a Level (every key that embeds a listPage).
type listKey interface {
	comparable
	listLevel() Level
}

// keysOf is the key of each parent's list, built by key: the lists a level starts together.
func keysOf[P any, K listKey](parents []P, key func(P) K) []K {
	keys := make([]K, len(parents))
	for i, p := range parents {
		keys[i] = key(p)
	}
	return keys
}

// usersKey is a page of an organization's users (AP3).
type usersKey struct {
	org string
	listPage
}

// ticketsKey is a page of a user's tickets (AP5).
type ticketsKey struct {
	org, user     string
	status        optional[saas.TicketStatus]
	after, before instant
	listPage
}

func ticketsKeyOf(org, user string, f saas.TicketFilter, args repository.PageArgs, level Level) ticketsKey {
	return ticketsKey{org: org, user: user, status: optionalOf(f.Status), after: instantOf(f.CreatedAfter), before: instantOf(f.CreatedBefore),
		listPage: listPageOf(args, level)}
}

func (k ticketsKey) filter() saas.TicketFilter {
	return saas.TicketFilter{Status: k.status.ptr(), CreatedAfter: k.after.time(), CreatedBefore: k.before.time()}
}

// historyKey is a page of a ticket's versions (AP21).
type historyKey struct {
	org, ticket string
	listPage
}

// withChildrenKey is a parent read with the first page of its combined child list (an
// organization and its users, a user and its tickets, a customer and its orders) or with all of
// its children (an order and its items, first 0): parent is the parent's first key part (the
// organization, the user's organization, the customer), id its second if it has one (the user,
// the order). first is otherwise always a valid page size (the planner's).
type withChildrenKey struct {
	parent, id string
	first      int
}

// orderFilterKey is an order filter: a status, placed after, placed before.
type orderFilterKey struct {
	status        optional[commerce.OrderStatus]
	after, before instant
}

func orderFilterOf(f commerce.OrderFilter) orderFilterKey {
	return orderFilterKey{status: optionalOf(f.Status), after: instantOf(f.PlacedAfter), before: instantOf(f.PlacedBefore)}
}

func (k orderFilterKey) filter() commerce.OrderFilter {
	return commerce.OrderFilter{Status: k.status.ptr(), PlacedAfter: k.after.time(), PlacedBefore: k.before.time()}
}

// ordersKey is a page of a customer's orders (AP16).
type ordersKey struct {
	customer string
	orderFilterKey
	listPage
}

func ordersKeyOf(customer string, f commerce.OrderFilter, args repository.PageArgs, level Level) ordersKey {
	return ordersKey{customer: customer, orderFilterKey: orderFilterOf(f), listPage: listPageOf(args, level)}
}

// ordersByStatusKey is a page of the orders of one status across customers (AP20).
type ordersByStatusKey struct {
	status        commerce.OrderStatus
	after, before instant
	listPage
}

// employeesByKey is a page of employees found through an index (AP12: by job title; AP13:
// hired since; AP30: by name, when byName is set).
type employeesByKey struct {
	jobTitle string
	name     string
	byName   bool
	since    instant
	listPage
}

// locationsKey is a page of locations under a country, state, city or postal code (AP14).
type locationsKey struct {
	country                 string
	state, city, postalCode optional[string]
	listPage
}

func locationsKeyOf(f hr.LocationFilter, args repository.PageArgs, level Level) locationsKey {
	return locationsKey{country: f.Country, state: optionalOf(f.State), city: optionalOf(f.City), postalCode: optionalOf(f.PostalCode),
		listPage: listPageOf(args, level)}
}

func (k locationsKey) filter() hr.LocationFilter {
	return hr.LocationFilter{Country: k.country, State: k.state.ptr(), City: k.city.ptr(), PostalCode: k.postalCode.ptr()}
}

// relListKey is one page of one inverse-relation list (AP9, AP11).
type relListKey struct {
	rel    hr.RelationType
	target string
	listPage
}
