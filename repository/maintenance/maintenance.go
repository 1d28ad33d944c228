// Package maintenance is what an operator runs on the table rather than what the API serves:
// migrations of earlier item shapes (Migrate), the recount of every counter (Recount), the sweeper
// that finishes the removals left to it (StartSweeper, Sweep), and the sample data (Seed,
// SampleItems).
package maintenance

import (
	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// Maintenance runs the table's maintenance over the engine's Repo and the domains it reads and
// repairs.
type Maintenance struct {
	*repository.Repo
	*commerce.Commerce
	*hr.HR
	*saas.SaaS
	*catalog.Catalog
}

// New is the maintenance of r's table.
func New(r *repository.Repo) *Maintenance {
	return &Maintenance{Repo: r, Catalog: catalog.New(r), SaaS: saas.New(r), HR: hr.New(r), Commerce: commerce.New(r)}
}
