package hr

import (
	"context"
	"errors"
	"time"

	"singletable/apperr"
	"singletable/repository"
)

// ListDepartments lists departments by name (AP7): a Query of the Department partition of the
// entity-type index GSI2, never a Scan.
func (r *HR) ListDepartments(ctx context.Context, args repository.PageArgs) (repository.Page[*Department], error) {
	return repository.ListByType[*Department](ctx, r.Repo, DepartmentsByName, args)
}

// EmployeesByJobTitle pages through the employees with a job title, compared without case,
// longest-serving first (AP12): GSI1 PK=JOBTITLE#<title>, sorted by <hiredAt>#<e>.
func (r *HR) EmployeesByJobTitle(ctx context.Context, title string, args repository.PageArgs) (repository.Page[*Employee], error) {
	title, err := repository.CleanText("jobTitle", title, 1, repository.MaxJobTitleLen, false)
	if err != nil {
		return repository.Page[*Employee]{}, err
	}
	pk := JobTitlePK(title)
	return repository.QueryPage[*Employee](ctx, r.Repo, EmployeesByJobTitle.Query(repository.Join("jobtitle", pk), pk), args)
}

// EmployeesByName pages through the employees with a name, compared without case and surrounding
// space, longest-serving first (AP30): GSI3 PK=EMPNAME#<name>, sorted by <hiredAt>#<e>. GSI3 is
// the order-status index overloaded: a name's partition is one Query, never a Scan or a filter
// over every employee, and the key moves with the name in updateEmployee's transaction.
func (r *HR) EmployeesByName(ctx context.Context, name string, args repository.PageArgs) (repository.Page[*Employee], error) {
	name, err := repository.CleanName("name", name)
	if err != nil {
		return repository.Page[*Employee]{}, err
	}
	pk := EmployeeNamePK(name)
	return repository.QueryPage[*Employee](ctx, r.Repo, EmployeesByName.Query(repository.Join("empname", pk), pk), args)
}

// EmployeesHiredSince pages through the employees hired at or after since, newest first (AP13):
// GSI2 PK=TYPE#Employee AND GSI2SK >= <since>, read backwards. The hire time leads the sort key,
// so the condition is a range on one partition of the overloaded index.
func (r *HR) EmployeesHiredSince(ctx context.Context, since time.Time, args repository.PageArgs) (repository.Page[*Employee], error) {
	if since.After(maxHireTime) {
		return repository.Page[*Employee]{HasPreviousPage: args.After != ""}, args.Validate()
	}
	if since.Before(MinHireTime) {
		since = MinHireTime
	}
	pk, lo := EmployeesHiredSince.PartitionKey, hireTime(since)
	return repository.QueryPage[*Employee](ctx, r.Repo, EmployeesHiredSince.Query(repository.Join("hired", pk, lo), pk, lo), args)
}

// LocationFilter selects locations at one level of the hierarchy: a country, a state of it, a
// city of that state, a postal code of that city. Each narrower level requires the wider ones.
type LocationFilter struct {
	Country    string
	State      *string
	City       *string
	PostalCode *string
}

// Locations pages through the locations of a country, state, city or postal code (AP14): Query
// PK=COUNTRY#<country>, with begins_with(SK, '<state>#'), '<state>#<city>#' or
// '<state>#<city>#<postalCode>#'. Locations come in key order: by case-folded state, city, postal
// code, then creation.
func (r *HR) Locations(ctx context.Context, f LocationFilter, args repository.PageArgs) (repository.Page[*Location], error) {
	country, err := repository.CleanText("country", f.Country, 1, repository.MaxCountryLen, false)
	if err != nil {
		return repository.Page[*Location]{}, err
	}
	if f.City != nil && f.State == nil {
		return repository.Page[*Location]{}, apperr.InvalidInput("city", "city requires state")
	}
	if f.PostalCode != nil && f.City == nil {
		return repository.Page[*Location]{}, apperr.InvalidInput("postalCode", "postalCode requires city (and state)")
	}
	var segments []string
	for _, p := range []struct {
		field string
		v     *string
		max   int
	}{{"state", f.State, repository.MaxStateLen}, {"city", f.City, repository.MaxCityLen}, {"postalCode", f.PostalCode, repository.MaxPostalCodeLen}} {
		if p.v == nil {
			break
		}
		v, err := repository.CleanText(p.field, *p.v, 1, p.max, false)
		if err != nil {
			return repository.Page[*Location]{}, err
		}
		segments = append(segments, v)
	}
	pk := countryPK(country)
	prefix := locationPrefix(segments...)
	scope := repository.Join("locations", pk, repository.Escape(prefix))
	if prefix == "" {
		return repository.QueryPage[*Location](ctx, r.Repo, LocationsOfCountry.Query(scope, pk), args)
	}
	return repository.QueryPage[*Location](ctx, r.Repo, LocationsUnder.Query(scope, pk, prefix), args)
}

// InverseRelations pages through the relationship items of type rel that point at target, in
// employee order: the employees of a department (AP9), the direct reports or mentees of an
// employee (AP11). It is one Query of the inverted GSI1 partition <target PK>#REL#<TYPE>; the
// caller reads the employees themselves by key (batched).
func (r *HR) InverseRelations(ctx context.Context, rel RelationType, target string, args repository.PageArgs) (repository.Page[*Relation], error) {
	if err := repository.CheckID("id", target); err != nil {
		return repository.Page[*Relation]{}, err
	}
	p, ok := inverseRelations[rel]
	if !ok {
		return repository.Page[*Relation]{}, apperr.Internal("inverse relations", errors.New("unknown relation type "+string(rel)))
	}
	pk := relationGSI1PK(rel, target)
	return repository.QueryPage[*Relation](ctx, r.Repo, p.Query(repository.Join("inverse", pk), pk), args)
}
