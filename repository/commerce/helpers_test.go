package commerce

import (
	"testing"

	"singletable/repository"
	"singletable/repository/repotest"
)

// newLocalRepo is the commerce of a new table of its own in DynamoDB Local (repotest), with the
// settings cfg sets (its non-zero fields).
func newLocalRepo(t *testing.T, cfg repository.Config) *Commerce {
	t.Helper()
	return New(repotest.NewRepo(t, repotest.With(cfg)))
}
