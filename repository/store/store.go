// Package store is the table's whole API as one value: the storage engine (repository.Repo)
// with each domain's reads and writes beside it. The server, the loaders, the resolvers and the
// commands hold a *Store; the domains' packages stay apart from one another, and only this one
// puts them together.
package store

import (
	"context"

	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/maintenance"
	"singletable/repository/saas"
	"singletable/repository/stream"
)

// Store reads and writes the table: the engine's methods and every domain's, promoted from the
// values it embeds. It is safe for concurrent use.
type Store struct {
	*repository.Repo
	*stream.Stream
	*maintenance.Maintenance
	*commerce.Commerce
	*hr.HR
	*saas.SaaS
	*catalog.Catalog
}

// New opens the table cfg names (repository.New) and puts its domains together.
func New(ctx context.Context, cfg repository.Config) (*Store, error) {
	r, err := repository.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return Of(r), nil
}

// Of is the Store over an engine opened already.
func Of(r *repository.Repo) *Store {
	return &Store{Repo: r, Catalog: catalog.New(r), SaaS: saas.New(r), HR: hr.New(r), Stream: stream.New(r), Maintenance: maintenance.New(r), Commerce: commerce.New(r)}
}
