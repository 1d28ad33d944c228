package stream

import (
	"testing"

	"singletable/repository"
	"singletable/repository/repotest"
	"singletable/repository/saas"
)

// testRepo is the stream of a test's table with the domains the tests write through.
type testRepo struct {
	*repository.Repo
	*Stream
	*saas.SaaS
}

// newLocalRepo is a testRepo on a new table of its own in DynamoDB Local (repotest), with the
// settings cfg sets (its non-zero fields).
func newLocalRepo(t *testing.T, cfg repository.Config) *testRepo {
	t.Helper()
	r := repotest.NewRepo(t, repotest.With(cfg))
	return &testRepo{Repo: r, Stream: New(r), SaaS: saas.New(r)}
}
