// Package storetest gives tests a Store on a table of their own in DynamoDB Local: repotest's
// table, with every domain put together.
package storetest

import (
	"testing"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/store"
)

// New is a Store on a new table of the test's own (repotest.NewRepo, which drops it when the
// test ends), with modify applied to its configuration.
func New(t testing.TB, modify ...func(*repository.Config)) *store.Store {
	t.Helper()
	return store.Of(repotest.NewRepo(t, modify...))
}
