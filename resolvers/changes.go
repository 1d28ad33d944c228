package resolvers

import (
	"context"

	"singletable/apperr"
	"singletable/auth"
	"singletable/graph/model"
	"singletable/repository/store"
	"singletable/repository/stream"
)

// Delta sync: a subscription's or a pull's scope in the change log, and its cursors. The scope
// and the filter come from the same checks of the arguments as a live subscription's (so roles,
// scopes and tenancy are the same), and a replayed change passes the same filter as a live one.

// changeFeed is the change log's view of a subscription's arguments: the collection it replays
// from (with the narrowing argument its cursors are bound to), and the filter every change,
// replayed or live, passes.
type changeFeed struct {
	scope  stream.ChangeScope
	filter func(stream.Change) bool
}

// replayPage is how many log items a subscription's replay reads per Query: small enough that the
// first replayed event is out within one call's time, large enough that 10,000 changes are 100
// calls.
const replayPage = 100

var errForeignCursor = &apperr.Error{Code: apperr.CodeBadUserInput, Field: "after",
	Message: "invalid cursor: pass a cursor of a change of the same field and arguments"}

// openAfter checks a client's `after` against the feed's scope and returns the position to
// continue after (zero without a cursor): BAD_USER_INPUT for a forged cursor or one of another
// scope the caller sees, NOT_FOUND (the body of an unknown object) for one of another tenant's
// scope, CURSOR_EXPIRED for one past the retention.
func openAfter(ctx context.Context, repo *store.Store, f changeFeed, after *string) (stream.ChangePosition, error) {
	var none stream.ChangePosition
	if after == nil {
		return none, nil
	}
	pos, err := repo.OpenChangeCursor(*after)
	if err != nil {
		return none, err
	}
	if pos.Scope == f.scope {
		return pos, nil
	}
	caller := auth.Caller(ctx)
	switch kind, id := pos.Scope.Tenant(); {
	case kind == "organization" && !caller.SeesOrg(id), kind == "customer" && !caller.SeesCustomer(id):
		return none, auth.Hidden(kind)
	}
	return none, errForeignCursor
}

// changePage reads the feed's changes after after: up to first that pass its filter, reading
// more pages of the log for a narrowing filter (at most pages + 1 Queries). last is the position
// of the last log item read, matching or not: where the next page starts.
func changePage(ctx context.Context, repo *store.Store, f changeFeed, after uint64, first int) (out []stream.Change, last uint64, more bool, err error) {
	last = after
	for {
		changes, next, err := repo.ChangesAfter(ctx, f.scope, last, first-len(out))
		if err != nil {
			return nil, 0, false, err
		}
		for _, c := range changes {
			last = c.Position
			if f.filter(c) {
				out = append(out, c)
			}
		}
		if !next || len(out) >= first {
			return out, last, next, nil
		}
	}
}

// pullArgs validates a pull's `first` (1..repository.MaxChangesPage; the schema's default is 100).
func pullArgs(first *int) (int, error) {
	n := stream.DefaultChangesPage
	if first != nil {
		n = *first
	}
	if n < 1 || n > stream.MaxChangesPage {
		return 0, apperr.InvalidInput("first", "first must be between 1 and %d", stream.MaxChangesPage)
	}
	return n, nil
}

// pull is a pull resolver's work: the feed's page after the client's cursor, as edges made by
// edge, and the page's info; the edges' cursors are those of the same changes delivered live.
func pull[E any](ctx context.Context, repo *store.Store, f changeFeed, after *string, first *int, edge func(*stream.Change, model.Cursored) E) ([]E, *model.PageInfo, error) {
	n, err := pullArgs(first)
	if err != nil {
		return nil, nil, err
	}
	from, err := openAfter(ctx, repo, f, after)
	if err != nil {
		return nil, nil, err
	}
	changes, _, more, err := changePage(ctx, repo, f, from.Position, n)
	if err != nil {
		return nil, nil, err
	}
	edges := make([]E, len(changes))
	info := &model.PageInfo{HasNextPage: more, HasPreviousPage: after != nil, Empty: len(changes) == 0}
	for i := range changes {
		cur := repo.ChangeCursor(f.scope, &changes[i])
		edges[i] = edge(&changes[i], model.Cursored{Position: cur})
		if i == 0 {
			info.Start = cur
		}
		info.End = cur
	}
	return edges, info, nil
}

// pulled is pull of the feed an argument check returned (its error, when the check failed), its
// page made into a connection by conn.
func pulled[E, C any](ctx context.Context, repo *store.Store, after *string, first *int, edge func(*stream.Change, model.Cursored) E,
	conn func([]E, *model.PageInfo) C) func(changeFeed, error) (C, error) {
	return func(f changeFeed, err error) (C, error) {
		var zero C
		if err != nil {
			return zero, err
		}
		edges, info, err := pull(ctx, repo, f, after, first, edge)
		if err != nil {
			return zero, err
		}
		return conn(edges, info), nil
	}
}

// The edges and connections of the pulls: each change's node carries its cursor, and so does its
// edge.

func ticketChangeEdge(c *stream.Change, cur model.Cursored) *model.TicketChangeEdge {
	return &model.TicketChangeEdge{Cursored: cur, Node: ticketChange(c, cur)}
}

func orderChangeEdge(c *stream.Change, cur model.Cursored) *model.OrderChangeEdge {
	return &model.OrderChangeEdge{Cursored: cur, Node: orderChange(c, cur)}
}

func employeeChangeEdge(c *stream.Change, cur model.Cursored) *model.EmployeeChangeEdge {
	return &model.EmployeeChangeEdge{Cursored: cur, Node: employeeChange(c, cur)}
}

func inventoryChangeEdge(c *stream.Change, cur model.Cursored) *model.InventoryChangeEdge {
	return &model.InventoryChangeEdge{Cursored: cur, Node: inventoryChange(c, cur)}
}

func ticketChangeConnection(edges []*model.TicketChangeEdge, info *model.PageInfo) *model.TicketChangeConnection {
	return &model.TicketChangeConnection{Edges: edges, PageInfo: info}
}

func orderChangeConnection(edges []*model.OrderChangeEdge, info *model.PageInfo) *model.OrderChangeConnection {
	return &model.OrderChangeConnection{Edges: edges, PageInfo: info}
}

func employeeChangeConnection(edges []*model.EmployeeChangeEdge, info *model.PageInfo) *model.EmployeeChangeConnection {
	return &model.EmployeeChangeConnection{Edges: edges, PageInfo: info}
}

func inventoryChangeConnection(edges []*model.InventoryChangeEdge, info *model.PageInfo) *model.InventoryChangeConnection {
	return &model.InventoryChangeConnection{Edges: edges, PageInfo: info}
}
