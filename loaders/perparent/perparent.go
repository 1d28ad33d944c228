// Package perparent is the benchmarks' and tests' baseline of per-field resolution, in the
// AppSync/Amplify style: every lookup by key is its own GetItem, made when (and each time) its
// field awaits it; nothing is batched, cached, primed or read ahead, and every list is one Query
// per parent. It plugs into the loaders through loaders.Options.Baseline and is imported only by
// cmd/bench and tests, so none of it is linked into the server.
package perparent

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"singletable/loaders"
	"singletable/repository"
)

// Options are the loaders' options for the per-parent baseline.
func Options() loaders.Options {
	return loaders.Options{Baseline: func(repo *repository.Repo) loaders.KeyFetcher { return keys{repo} }}
}

// keys looks every key up by its own GetItem, when its thunk is awaited. Queued lookups nobody
// awaits (Prefetch, FetchNow) cost nothing.
type keys struct{ repo *repository.Repo }

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
