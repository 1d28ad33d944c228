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

// pageInfo is the Relay page info of p: its cursors are sealed only if the operation asks for them.
func pageInfo[T any](p repository.Page[T]) *model.PageInfo {
	pi := &model.PageInfo{HasNextPage: p.HasNextPage, HasPreviousPage: p.HasPreviousPage, Empty: len(p.Cursors) == 0}
	if n := len(p.Cursors); n > 0 {
		pi.Start, pi.End = p.Cursors[0], p.Cursors[n-1]
	}
	return pi
}

// edges builds one edge per item, its node wrapping the item, with the item's position (sealed
// into a cursor only if the operation asks for it). The edges and the nodes of a page are each
// one slice, allocated once: set fills edge e and node n of item.
func edges[T, E, N any](p repository.Page[T], set func(e *E, n *N, cursor model.Cursored, item T)) []*E {
	es := make([]E, len(p.Items))
	ns := make([]N, len(p.Items))
	out := make([]*E, len(p.Items))
	for i, item := range p.Items {
		set(&es[i], &ns[i], model.Cursored{Position: p.Cursors[i]}, item)
		out[i] = &es[i]
	}
	return out
}
