package hr_test

import (
	"testing"

	"singletable/apperr"
	"singletable/loaders"
	"singletable/loaders/perparent"
	"singletable/repository"
	"singletable/repository/hr"
	"singletable/repository/store"
)

// AP10 tells "no relation" (null) from "a relation to an employee that does not exist"
// (NOT_FOUND naming the relation). The API's transactions never leave the second; the test
// plants it.
func TestMissingRelationIsNullButDanglingOneIsNotFound(t *testing.T) {
	w := newHRWorld(t)
	d := w.department("Lab")
	e := w.staff(d, 1)[0]
	ghost := "01J00000000000000000000009"
	if err := hr.PutRelation(w.ctx, w.r.HR, e.ID, hr.RelMentor, ghost); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []loaders.Options{{}, perparent.Options()} {
		l := loaders.New(store.Of(w.r.Repo), opts)
		ctx := loaders.NewContext(w.ctx, l)
		m, err := l.Related(ctx, e.ID, hr.RelManager)
		if m != nil || err != nil {
			t.Fatalf("baseline %v: no manager gives %v, %v; want nil, nil", opts.Keys != nil, m, err)
		}
		_, err = l.Related(ctx, e.ID, hr.RelMentor)
		if apperr.CodeOf(err) != apperr.CodeNotFound || err.Error() != "NOT_FOUND: mentor not found" {
			t.Fatalf("baseline %v: dangling mentor gives %v, want NOT_FOUND mentor", opts.Keys != nil, err)
		}
		dept, err := l.DepartmentOf(ctx, e.ID)
		if err != nil || dept.ID != d.ID {
			t.Fatalf("baseline %v: department %v, %v", opts.Keys != nil, dept, err)
		}
		// The inverted index still lists e among the ghost's mentees: e itself exists.
		p, err := l.Mentees(ctx, ghost, repository.PageArgs{}, nil)
		if err != nil || len(p.Items) != 1 || p.Items[0].ID != e.ID {
			t.Fatalf("baseline %v: mentees of the ghost %+v, %v", opts.Keys != nil, p, err)
		}
	}
}
