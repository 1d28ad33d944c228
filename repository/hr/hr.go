// Package hr is the company's storage: locations, departments and their employees, the
// employees' relations (department, manager, mentor, warehouse), their job history, and the
// warehouses' staff.
package hr

import "singletable/repository"

// HR reads and writes locations, departments and employees, over the engine's Repo.
type HR struct {
	*repository.Repo
}

// New is the HR of r's table.
func New(r *repository.Repo) *HR { return &HR{Repo: r} }
