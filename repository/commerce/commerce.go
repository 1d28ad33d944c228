// Package commerce is the shop's storage: customers and their mailing addresses, orders and their
// items (taking stock from the catalog in the order's transaction), cancellations, and the
// account reps (HR's employees) with their monthly sales.
package commerce

import "singletable/repository"

// Commerce reads and writes customers, orders and account reps, over the engine's Repo.
type Commerce struct {
	*repository.Repo
}

// New is the commerce of r's table.
func New(r *repository.Repo) *Commerce { return &Commerce{Repo: r} }
