package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"singletable/graph/model"
	"singletable/loaders"
	"singletable/repository"
)

// selection lists the fields an operation selects on objects of one type at one place of the
// query, fragments and aliases resolved.
type selection map[string]bool

// collect returns the fields selected in sels on an object of type typ.
func collect(ctx context.Context, sels ast.SelectionSet, typ string) selection {
	out := selection{}
	for _, f := range graphql.CollectFields(graphql.GetOperationContext(ctx), sels, []string{typ, "Node"}) {
		out[f.Name] = true
	}
	return out
}

// listSelection is what the current field (a plain list or nodes(ids:)) selects on elements of
// type typ.
func listSelection(ctx context.Context, typ string) selection {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil {
		return selection{}
	}
	return collect(ctx, fc.Field.Selections, typ)
}

// connectionSelection is what the current connection field selects on its nodes:
// edges { node { … } }.
func connectionSelection(ctx context.Context, nodeType string) selection {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil {
		return selection{}
	}
	opCtx := graphql.GetOperationContext(ctx)
	out := selection{}
	for _, edges := range graphql.CollectFields(opCtx, fc.Field.Selections, nil) {
		if edges.Name != "edges" {
			continue
		}
		for _, node := range graphql.CollectFields(opCtx, edges.Selections, nil) {
			if node.Name != "node" {
				continue
			}
			for name := range collect(ctx, node.Selections, nodeType) {
				out[name] = true
			}
		}
	}
	return out
}

// prefetchRefs queues, for each entity of a list, the key lookups of the to-one fields the
// operation selects on it, so that the whole level lands in one BatchGetItem (see
// loaders.Prefetch). Keys already read in this request cost nothing.
func prefetchRefs[T any](ctx context.Context, sel selection, items []T) {
	loaders.For(ctx).Prefetch(ctx, refKeys(sel, items)...)
}

// refKeys are the keys of the to-one fields sel asks for on items.
func refKeys[T any](sel selection, items []T) []repository.Key {
	if len(items) == 0 || len(sel) == 0 {
		return nil
	}
	var keys []repository.Key
	add := func(k repository.Key, err error) {
		if err == nil {
			keys = append(keys, k)
		}
	}
	for _, item := range items {
		switch e := any(item).(type) {
		case *repository.Ticket:
			if sel["reporter"] {
				add(repository.UserKey(e.OrgID, e.ReporterID))
			}
			if sel["organization"] {
				add(repository.OrganizationKey(e.OrgID))
			}
		case *repository.User:
			if sel["organization"] {
				add(repository.OrganizationKey(e.OrgID))
			}
		case *repository.Order:
			if sel["customer"] {
				add(repository.CustomerKey(e.CustomerID))
			}
			if sel["items"] {
				keys = append(keys, e.ItemKeys()...)
			}
		case *repository.Department:
			if sel["location"] {
				add(repository.LocationKey(e.Location))
			}
		}
	}
	return keys
}

// ticketListRefKeys are, for users fetched by nodes(ids:), the lookups their ticket lists'
// tickets will make whatever the lists' Queries return: each ticket's organization is its user's.
// nodes holds all the users, so these join its next batch, sent at once, instead of waiting for
// every sibling list to start within the loader's window (prefetchParentRefs).
func ticketListRefKeys(ctx context.Context, users []*repository.User) []repository.Key {
	fc := graphql.GetFieldContext(ctx)
	if len(users) == 0 || fc == nil || fc.Field.Field == nil {
		return nil
	}
	opCtx := graphql.GetOperationContext(ctx)
	wants := false
	for _, f := range graphql.CollectFields(opCtx, fc.Field.Selections, []string{model.TypeUser, "Node"}) {
		if f.Name != "tickets" {
			continue
		}
		for _, g := range nodeSelectionOf(opCtx, f.Selections, "TicketConnection", "TicketEdge", model.TypeTicket) {
			wants = wants || g.Name == "organization"
		}
	}
	if !wants {
		return nil
	}
	var keys []repository.Key
	for _, u := range users {
		if k, err := repository.OrganizationKey(u.OrgID); err == nil {
			keys = append(keys, k)
		}
	}
	return keys
}

// prefetchParentRefs queues, before a user's tickets are queried, the lookups that every ticket
// of the list will make: its organization (the user's) and its reporter (the user). Sibling lists
// start together, so these share one batch, which runs while the Queries do; queued only when
// each ticket's Query returns, they would depend on the Queries returning within the loader's
// window of each other.
func prefetchParentRefs(ctx context.Context, sel selection, u *repository.User) {
	var keys []repository.Key
	if sel["organization"] {
		if k, err := repository.OrganizationKey(u.OrgID); err == nil {
			keys = append(keys, k)
		}
	}
	if sel["reporter"] {
		if k, err := repository.UserKey(u.OrgID, u.ID); err == nil {
			keys = append(keys, k)
		}
	}
	loaders.For(ctx).Prefetch(ctx, keys...)
}

// nodeKey is the key of the entity a decoded global ID names, for the types that are plain key
// lookups; ok is false for other types.
func nodeKey(typ string, parts []string) (repository.Key, bool) {
	var (
		k   repository.Key
		err error
	)
	switch typ {
	case model.TypeOrganization:
		k, err = repository.OrganizationKey(parts[0])
	case model.TypeUser:
		k, err = repository.UserKey(parts[0], parts[1])
	case model.TypeTicket:
		k, err = repository.TicketKey(parts[0])
	case model.TypeCustomer:
		k, err = repository.CustomerKey(parts[0])
	case model.TypeOrder:
		k, err = repository.OrderKey(parts[0], parts[1])
	case model.TypeDepartment:
		k, err = repository.DepartmentKey(parts[0])
	case model.TypeEmployee:
		k, err = repository.EmployeeKey(parts[0])
	case model.TypeLocation:
		k, err = repository.LocationKey(model.LocationRefOf(parts))
	default:
		return k, false
	}
	return k, err == nil
}
