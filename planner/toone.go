package planner

import (
	"singletable/graph/model"
	"singletable/repository"
)

// A toOne is a field whose object is found by a key that follows from its parent object alone
// (a ticket's reporter), or a fixed list of such keys (an order's items). A list that knows which
// of these fields the operation selects on its elements queues every element's lookups in one loop,
// so the whole level lands in one BatchGetItem however late gqlgen starts the elements' resolvers.
type toOne struct {
	field string
	keys  func(e repository.Entity) []repository.Key
}

// one adapts a single-key function of an entity type T to a toOne key function.
func one[T repository.Entity](key func(T) (repository.Key, error)) func(repository.Entity) []repository.Key {
	return func(e repository.Entity) []repository.Key {
		t, ok := e.(T)
		if !ok {
			return nil
		}
		k, err := key(t)
		if err != nil {
			return nil
		}
		return []repository.Key{k}
	}
}

// toOneEdges are the to-one fields of each object type, by schema type name.
var toOneEdges = map[string][]toOne{
	model.Tickets.Name: {
		{"reporter", one(func(t *repository.Ticket) (repository.Key, error) { return repository.UserKey(t.OrgID, t.ReporterID) })},
		{"organization", one(func(t *repository.Ticket) (repository.Key, error) { return repository.OrganizationKey(t.OrgID) })},
	},
	model.Users.Name: {
		{"organization", one(func(u *repository.User) (repository.Key, error) { return repository.OrganizationKey(u.OrgID) })},
	},
	model.Orders.Name: {
		{"customer", one(func(o *repository.Order) (repository.Key, error) { return repository.CustomerKey(o.CustomerID) })},
		{"items", func(e repository.Entity) []repository.Key {
			if o, ok := e.(*repository.Order); ok {
				return o.ItemKeys()
			}
			return nil
		}},
	},
	model.Departments.Name: {
		{"location", one(func(d *repository.Department) (repository.Key, error) { return repository.LocationKey(d.Location) })},
	},
}

// RefKeys are the keys the to-one fields this selection asks for will look up on items (objects
// of the selection's type).
func RefKeys[T repository.Entity](s Selection, items []T) []repository.Key {
	if len(items) == 0 {
		return nil
	}
	var keys []repository.Key
	for _, edge := range toOneEdges[s.typ] {
		if !s.Has(edge.field) {
			continue
		}
		for _, item := range items {
			keys = append(keys, edge.keys(item)...)
		}
	}
	return keys
}

// A parentEdge is a to-one field that every element of a child list answers with the same key,
// one that follows from the list's parent: every ticket of a user's list has that user as reporter
// and the user's organization as organization. Those lookups can be queued before the list's Query
// returns, next to the sibling lists' own.
type parentEdge struct {
	parent, list string
	toOne
}

var parentEdges = []parentEdge{
	{model.Users.Name, "tickets", toOne{"organization", toOneEdges[model.Users.Name][0].keys}},
	{model.Users.Name, "tickets", toOne{"reporter", func(e repository.Entity) []repository.Key { return []repository.Key{e.Key()} }}},
}

// ParentKeys are the lookups the elements of parent's list field will make whatever the list's
// Query returns, for the fields nodes (the list's node selection) asks for. parentType is the
// parent's schema type.
func ParentKeys[T repository.Entity](parentType, list string, nodes Selection, parents []T) []repository.Key {
	var keys []repository.Key
	for _, edge := range parentEdges {
		if edge.parent != parentType || edge.list != list || !nodes.Has(edge.field) {
			continue
		}
		for _, p := range parents {
			keys = append(keys, edge.keys(p)...)
		}
	}
	return keys
}

// ListParentKeys is ParentKeys for the objects of this selection (of type parentType) and every
// list field it selects: nodes(ids:) holds all the users of its level and queues their ticket
// lists' lookups with its own next batch.
func ListParentKeys[T repository.Entity](s Selection, parents []T) []repository.Key {
	if len(parents) == 0 {
		return nil
	}
	var keys []repository.Key
	seen := map[string]bool{}
	for _, edge := range parentEdges {
		if edge.parent != s.typ || seen[edge.list] {
			continue
		}
		seen[edge.list] = true
		for _, f := range s.all(edge.list) {
			keys = append(keys, ParentKeys(s.typ, edge.list, s.ChildNodes(f), parents)...)
		}
	}
	return keys
}
