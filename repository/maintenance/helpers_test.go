package maintenance

import (
	"context"
	"testing"

	"singletable/repository"
	"singletable/repository/hr"
	"singletable/repository/repotest"
	"singletable/repository/saas"
)

// newLocalRepo is the maintenance of a new table of its own in DynamoDB Local (repotest), with
// the settings cfg sets (its non-zero fields).
func newLocalRepo(t *testing.T, cfg repository.Config) *Maintenance {
	t.Helper()
	return New(repotest.NewRepo(t, repotest.With(cfg)))
}

// ticketFixture is an organization with one user and one ticket (version 1).
func ticketFixture(t *testing.T, r *Maintenance) (*saas.User, *saas.Ticket) {
	t.Helper()
	ctx := context.Background()
	org, err := r.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	u, err := r.CreateUser(ctx, org.ID, "Ada", "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := r.CreateTicket(ctx, org.ID, u.ID, "first", "body")
	if err != nil {
		t.Fatal(err)
	}
	return u, tk
}

// ReadEmployee reads an employee with a consistent read.
func ReadEmployee(ctx context.Context, r *Maintenance, id string) (*hr.Employee, bool, error) {
	return readConsistent[*hr.Employee](ctx, r, hr.EmpKey(id))
}

// ReadRelation reads an employee's relation item of one type with a consistent read.
func ReadRelation(ctx context.Context, r *Maintenance, id string, rel hr.RelationType) (*hr.Relation, bool, error) {
	k, err := hr.RelationKey(id, rel)
	if err != nil {
		return nil, false, err
	}
	return readConsistent[*hr.Relation](ctx, r, k)
}

func readConsistent[T repository.Entity](ctx context.Context, r *Maintenance, k repository.Key) (T, bool, error) {
	found, err := r.ReadConsistent(ctx, k)
	if err != nil {
		var none T
		return none, false, err
	}
	v, ok := repository.FoundAs[T](found, k)
	return v, ok, nil
}
