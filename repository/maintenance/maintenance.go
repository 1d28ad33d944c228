// Package maintenance is what an operator runs on the table rather than what the API serves:
// migrations of earlier item shapes (Migrate), the recount of every counter (Recount), and the
// sample data (Seed, SampleItems).
package maintenance

import "singletable/repository"

// Maintenance runs the table's maintenance over the engine's Repo.
type Maintenance struct {
	*repository.Repo
}

// New is the maintenance of r's table.
func New(r *repository.Repo) *Maintenance { return &Maintenance{Repo: r} }
