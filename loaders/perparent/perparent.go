// Package perparent is the benchmarks' and tests' baseline of per-field resolution, in the
// AppSync/Amplify style: every lookup by key is its own GetItem, made when (and each time) its
// field awaits it; nothing is batched, cached, primed or read ahead, and every list is one Query
// per parent, read by its own resolver. It is two values the server takes: the loaders' key
// fetcher (Options) and a planner that plans nothing ahead (Planner). Only cmd/bench and tests
// import it, so none of it is linked into the server.
package perparent

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"
	"github.com/vektah/gqlparser/v2/ast"

	"singletable/loaders"
	"singletable/planner"
	"singletable/repository"
	"singletable/repository/store"
)

// Options are the loaders' options for the per-parent baseline: one GetItem per lookup.
func Options() loaders.Options {
	return loaders.Options{Keys: func(repo *store.Store) loaders.KeyFetcher { return keys{repo} }}
}

// Planner plans nothing ahead: no parent is read with its children, no list is started for a
// level, no lookup is queued before its field awaits it.
type Planner struct{}

var _ planner.Planner = Planner{}

// Level is an empty level of objects of type typ.
func (Planner) Level(_ *planner.Plan, _ ast.SelectionSet, typ string, _ *planner.Field) *planner.Level {
	return &planner.Level{Type: typ}
}

// keys looks every key up by its own GetItem, when its thunk is awaited. Queued lookups nobody
// awaits (Prefetch, FetchNow) cost nothing.
type keys struct{ repo *store.Store }

var _ loaders.KeyFetcher = keys{}

func (p keys) Thunk(ctx context.Context, k repository.Key) dataloader.Thunk[repository.Entity] {
	return func() (repository.Entity, error) { return p.repo.Get(ctx, k) }
}

func (p keys) Now(ctx context.Context, ks []repository.Key) []dataloader.Thunk[repository.Entity] {
	out := make([]dataloader.Thunk[repository.Entity], len(ks))
	for i, k := range ks {
		out[i] = p.Thunk(ctx, k)
	}
	return out
}

func (keys) Prime(repository.Key, repository.Entity) {}
func (keys) Set(repository.Key, repository.Entity)   {}
