// Package catalog is the product catalog's storage: products, warehouses, and the stock of each
// product in each warehouse with the product's total.
package catalog

import "singletable/repository"

// Catalog reads and writes products, warehouses and stock, over the engine's Repo.
type Catalog struct {
	*repository.Repo
}

// New is the catalog of r's table.
func New(r *repository.Repo) *Catalog { return &Catalog{Repo: r} }
