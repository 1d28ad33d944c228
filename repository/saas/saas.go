// Package saas is the ticketing service's storage: organizations, their users, and the users'
// tickets with each ticket's versions.
package saas

import "singletable/repository"

// SaaS reads and writes organizations, users and tickets, over the engine's Repo.
type SaaS struct {
	*repository.Repo
}

// New is the SaaS of r's table.
func New(r *repository.Repo) *SaaS { return &SaaS{Repo: r} }
