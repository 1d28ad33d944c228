package resolvers

import (
	"singletable/graph/model"
	"singletable/repository"
)

// pageArgs turns a connection's `first` and `after` arguments into repository.PageArgs; the
// repository validates them.
func pageArgs(first *int, after *string) repository.PageArgs {
	a := repository.PageArgs{}
	if first != nil {
		a.First = *first
		if a.First == 0 {
			a.First = -1 // an explicit 0 is out of range, not "use the default"
		}
	}
	if after != nil {
		a.After = *after
	}
	return a
}

func pageInfo[T any](p repository.Page[T]) *model.PageInfo {
	pi := &model.PageInfo{HasNextPage: p.HasNextPage, HasPreviousPage: p.HasPreviousPage, Empty: len(p.Cursors) == 0}
	if n := len(p.Cursors); n > 0 {
		pi.Start, pi.End = p.Cursors[0], p.Cursors[n-1]
	}
	return pi
}

// edges builds one edge per item with the item's position (sealed into a cursor only if the
// operation asks for it).
func edges[T, E any](p repository.Page[T], edge func(cursor model.Cursored, item T) E) []E {
	out := make([]E, len(p.Items))
	for i, item := range p.Items {
		out[i] = edge(model.Cursored{Position: p.Cursors[i]}, item)
	}
	return out
}

func organizationConnection(p repository.Page[*repository.Organization]) *model.OrganizationConnection {
	return &model.OrganizationConnection{PageInfo: pageInfo(p), Edges: edges(p, func(c model.Cursored, o *repository.Organization) *model.OrganizationEdge {
		return &model.OrganizationEdge{Cursored: c, Node: &model.Organization{Organization: o}}
	})}
}

func userConnection(p repository.Page[*repository.User]) *model.UserConnection {
	return &model.UserConnection{PageInfo: pageInfo(p), Edges: edges(p, func(c model.Cursored, u *repository.User) *model.UserEdge {
		return &model.UserEdge{Cursored: c, Node: &model.User{User: u}}
	})}
}

func ticketConnection(p repository.Page[*repository.Ticket]) *model.TicketConnection {
	return &model.TicketConnection{PageInfo: pageInfo(p), Edges: edges(p, func(c model.Cursored, t *repository.Ticket) *model.TicketEdge {
		return &model.TicketEdge{Cursored: c, Node: &model.Ticket{Ticket: t}}
	})}
}
