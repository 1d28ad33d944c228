package repository

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// The HR domain: Department → Employees, an employee's manager and mentor, and the Location
// hierarchy.
//
//	Location     PK=COUNTRY#<country>  SK=<state>#<city>#<postalCode>#<l>     (AP14, seed 000 strategy 5)
//	Department   PK=DEPT#<d>           SK=DEPT#<d>        GSI2: TYPE#Department / <name>#<d>  (AP7, AP8)
//	Employee     PK=EMP#<e>            SK=EMP#<e>         GSI1: JOBTITLE#<title> / <hiredAt>#<e>  (AP12)
//	                                                      GSI2: TYPE#Employee / <hiredAt>#<e>     (AP13)
//	Relation     PK=EMP#<e>            SK=REL#<TYPE>      GSI1: <target PK>#REL#<TYPE> / EMP#<e>  (AP9–AP11)
//
// Relations follow seed 002's Method 4: each of an employee's relations (its department, its
// manager, its mentor) is an item of its own under the employee, at a key known from the
// employee's id and the relation type (AP10), and the overloaded GSI1 inverts it (AP9, AP11). A
// department's name is duplicated onto its employees (AP19, seed 000 strategy 2), kept in step by
// renameDepartment (hr_rename.go). Keys are in keys.go, writes in hr_write.go.

// Length limits of HR text fields. The location's parts are also parts of its key and of its
// global ID, so they are short.
const (
	maxJobTitleLen           = 100
	maxLocationCountryLen    = 60
	maxLocationStateLen      = 60
	maxLocationCityLen       = 100
	maxLocationPostalCodeLen = 20
	maxAddressLen            = 300
)

// Location is a place departments are based at. Country, state, city and postal code are stored
// as given (trimmed) for display; the key uses their case-folded forms.
type Location struct {
	ID         string    `dynamodbav:"id"`
	Country    string    `dynamodbav:"country"`
	State      string    `dynamodbav:"state"`
	City       string    `dynamodbav:"city"`
	PostalCode string    `dynamodbav:"postalCode"`
	Address    string    `dynamodbav:"address"`
	CreatedAt  time.Time `dynamodbav:"createdAt"`
}

// Key implements Entity.
func (l *Location) Key() Key { return locationEntity.key(l) }

// locationEntity is the definition of the Location item: a country's partition, sorted by the
// hierarchical key state#city#postalCode#id so that a begins_with at any level answers AP14.
var locationEntity = entity[Location, *Location]{
	name: typeLocation,
	key:  func(l *Location) Key { return locationKey(l.Country, l.State, l.City, l.PostalCode, l.ID) },
	examples: func() []*Location {
		return []*Location{{ID: "<locationId>", Country: "<country>", State: "<state>", City: "<city>", PostalCode: "<postalcode>"}}
	},
}

// Ref is the reference to the location that a department stores.
func (l *Location) Ref() LocationRef {
	return LocationRef{Country: l.Country, State: l.State, City: l.City, PostalCode: l.PostalCode, ID: l.ID}
}

// LocationRef is everything needed to build a location's key: a location lives in its country's
// partition under a hierarchical sort key, so its id alone does not find it. It is also what a
// location's global ID carries.
type LocationRef struct {
	Country    string `dynamodbav:"country"`
	State      string `dynamodbav:"state"`
	City       string `dynamodbav:"city"`
	PostalCode string `dynamodbav:"postalCode"`
	ID         string `dynamodbav:"id"`
}

// Department groups employees. NameVersion counts renames; PropagatedVersion is the last
// version whose name has been copied onto every employee (AP19), so a department with
// PropagatedVersion < NameVersion has a rename whose propagation has not finished.
type Department struct {
	ID                string      `dynamodbav:"id"`
	Name              string      `dynamodbav:"name"`
	Location          LocationRef `dynamodbav:"location"`
	NameVersion       int         `dynamodbav:"nameVersion"`
	PropagatedVersion int         `dynamodbav:"propagatedVersion"`
	CreatedAt         time.Time   `dynamodbav:"createdAt"`
	UpdatedAt         time.Time   `dynamodbav:"updatedAt"`
}

// Key implements Entity.
func (d *Department) Key() Key { return departmentEntity.key(d) }

// departmentEntity is the definition of the Department item: the root of its own partition, listed by
// name on GSI2 (AP7).
var departmentEntity = entity[Department, *Department]{
	name: typeDepartment,
	key:  func(d *Department) Key { return deptKey(d.ID) },
	indexes: func(d *Department, _ int) []indexKey {
		return []indexKey{{gsi2, typePK(typeDepartment), nameSortKey(d.Name, d.ID)}}
	},
	examples: func() []*Department { return []*Department{{ID: "<departmentId>", Name: "<name>"}} },
}

// NamePropagationPending reports whether the last rename is still being copied to employees.
func (d *Department) NamePropagationPending() bool { return d.PropagatedVersion < d.NameVersion }

// Employee works in one department. DepartmentID and DepartmentName duplicate the department
// membership (AP19: the name without a second read); DepartmentNameVersion is the department
// NameVersion the copy reflects, so that a rename's propagation never overwrites a newer copy.
// The relation items remain the source of truth for the department, manager and mentor.
type Employee struct {
	ID                    string    `dynamodbav:"id"`
	Name                  string    `dynamodbav:"name"`
	Email                 string    `dynamodbav:"email"`
	JobTitle              string    `dynamodbav:"jobTitle"`
	HiredAt               time.Time `dynamodbav:"hiredAt"`
	DepartmentID          string    `dynamodbav:"departmentId"`
	DepartmentName        string    `dynamodbav:"departmentName"`
	DepartmentNameVersion int       `dynamodbav:"departmentNameVersion"`
	CreatedAt             time.Time `dynamodbav:"createdAt"`
}

// Key implements Entity.
func (e *Employee) Key() Key { return employeeEntity.key(e) }

// exampleTime stands for a time in the key table's examples.
var exampleTime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

// employeeEntity is the definition of the Employee item: the root of its partition (its relation
// items share it), by job title on GSI1 (AP12) and by hire time on GSI2 (AP13), both sorted by
// hire time.
var employeeEntity = entity[Employee, *Employee]{
	name: typeEmployee,
	key:  func(e *Employee) Key { return empKey(e.ID) },
	indexes: func(e *Employee, _ int) []indexKey {
		hired := hireSortKey(e.HiredAt, e.ID)
		return []indexKey{{gsi1, jobTitlePK(e.JobTitle), hired}, {gsi2, typePK(typeEmployee), hired}}
	},
	examples: func() []*Employee {
		return []*Employee{{ID: "<employeeId>", JobTitle: "<jobtitle>", HiredAt: exampleTime}}
	},
	placeholders: map[string]string{hireTime(exampleTime): "<hiredAt>"},
}

// RelationType names one kind of relationship item under an employee.
type RelationType string

// Relation types. Each is an SK value under the employee (REL#<TYPE>) and a suffix of the GSI1
// partition that inverts it; adding one needs no new index.
const (
	RelDepartment RelationType = "DEPARTMENT"
	RelManager    RelationType = "MANAGER"
	RelMentor     RelationType = "MENTOR"
)

func (t RelationType) valid() bool {
	return t == RelDepartment || t == RelManager || t == RelMentor
}

// Relation is a relationship item: employee EmployeeID's relation of type Type points at
// TargetID (a department for DEPARTMENT, an employee for MANAGER and MENTOR).
type Relation struct {
	EmployeeID string       `dynamodbav:"employeeId"`
	Type       RelationType `dynamodbav:"relation"`
	TargetID   string       `dynamodbav:"targetId"`
	UpdatedAt  time.Time    `dynamodbav:"updatedAt"`
}

// Key implements Entity.
func (r *Relation) Key() Key { return relationEntity.key(r) }

// relationEntity is the definition of the relationship item: one per employee and relation type under
// the employee (AP10), inverted on GSI1 so that the employees related to a target are one Query
// (AP9, AP11) whatever the relation: a new relation type needs no new index.
var relationEntity = entity[Relation, *Relation]{
	name: typeRelation,
	key:  func(r *Relation) Key { return relationKey(r.EmployeeID, r.Type) },
	indexes: func(r *Relation, _ int) []indexKey {
		return []indexKey{{gsi1, relationGSI1PK(r.Type, r.TargetID), relationGSI1SK(r.EmployeeID)}}
	},
	examples: func() []*Relation {
		var out []*Relation
		for _, rel := range []RelationType{RelDepartment, RelManager, RelMentor} {
			out = append(out, &Relation{EmployeeID: "<employeeId>", Type: rel, TargetID: "<targetId>"})
		}
		return out
	},
}

// DepartmentKey, EmployeeKey, LocationKey and RelationKey are the keys of HR entities looked up
// by key (AP8, AP10, AP14 by ID). They validate their parts, which come from clients.
func DepartmentKey(id string) (Key, error) {
	if err := checkID("id", id); err != nil {
		return Key{}, err
	}
	return deptKey(id), nil
}

// EmployeeKey is the key of an employee's root item.
func EmployeeKey(id string) (Key, error) {
	if err := checkID("id", id); err != nil {
		return Key{}, err
	}
	return empKey(id), nil
}

// LocationKey is the key of a location. The parts are re-validated with the rules createLocation
// applies, so a forged global ID cannot build a key createLocation would refuse.
func LocationKey(ref LocationRef) (Key, error) {
	if _, err := cleanLocationRef(ref); err != nil || ref.ID == "" {
		return Key{}, apperr.InvalidInput("id", "not a valid location id")
	}
	return locationKey(ref.Country, ref.State, ref.City, ref.PostalCode, ref.ID), nil
}

// RelationKey is the key of employee e's relation of type rel (AP10).
func RelationKey(e string, rel RelationType) (Key, error) {
	if err := checkID("id", e); err != nil {
		return Key{}, err
	}
	if !rel.valid() {
		return Key{}, apperr.Internal("relation key", errors.New("unknown relation type "+string(rel)))
	}
	return relationKey(e, rel), nil
}

// cleanLocationRef trims and checks the key parts of a location (and its id, when set); the
// error names the first field at fault.
func cleanLocationRef(ref LocationRef) (LocationRef, error) {
	var err error
	if ref.Country, err = cleanText("country", ref.Country, 1, maxLocationCountryLen, false); err != nil {
		return ref, err
	}
	if ref.State, err = cleanText("state", ref.State, 1, maxLocationStateLen, false); err != nil {
		return ref, err
	}
	if ref.City, err = cleanText("city", ref.City, 1, maxLocationCityLen, false); err != nil {
		return ref, err
	}
	if ref.PostalCode, err = cleanText("postalCode", ref.PostalCode, 1, maxLocationPostalCodeLen, false); err != nil {
		return ref, err
	}
	if ref.ID != "" {
		if err := checkID("id", ref.ID); err != nil {
			return ref, err
		}
	}
	return ref, nil
}

// ListDepartments lists departments by name (AP7): a Query of the Department partition of the
// entity-type index GSI2, never a Scan.
func (r *Repo) ListDepartments(ctx context.Context, args PageArgs) (Page[*Department], error) {
	return listByType[*Department](ctx, r, typeDepartment, args)
}

// EmployeesByJobTitle pages through the employees with a job title, compared without case,
// longest-serving first (AP12): GSI1 PK=JOBTITLE#<title>, sorted by <hiredAt>#<e>.
func (r *Repo) EmployeesByJobTitle(ctx context.Context, title string, args PageArgs) (Page[*Employee], error) {
	title, err := cleanText("jobTitle", title, 1, maxJobTitleLen, false)
	if err != nil {
		return Page[*Employee]{}, err
	}
	pk := jobTitlePK(title)
	return queryPage[*Employee](ctx, r, pageQuery{
		index:   gsi1,
		scope:   join("jobtitle", pk),
		keyCond: "GSI1PK = :pk",
		values:  map[string]types.AttributeValue{":pk": s(pk)},
	}, args)
}

// Hire times the API accepts. The fixed-width sort key needs a four-digit year.
var (
	minHireTime = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	maxHireTime = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// EmployeesHiredSince pages through the employees hired at or after since, newest first (AP13,
// seed 001 pattern 6 "GSI-1, PK=HR-CONFIDENTIAL, SK > date1"): GSI2 PK=TYPE#Employee AND
// GSI2SK >= <since>, read backwards.
func (r *Repo) EmployeesHiredSince(ctx context.Context, since time.Time, args PageArgs) (Page[*Employee], error) {
	if since.After(maxHireTime) {
		return Page[*Employee]{HasPreviousPage: args.After != ""}, args.Validate()
	}
	if since.Before(minHireTime) {
		since = minHireTime
	}
	pk, lo := typePK(typeEmployee), hireTime(since)
	return queryPage[*Employee](ctx, r, pageQuery{
		index:      gsi2,
		scope:      join("hired", pk, lo),
		keyCond:    "GSI2PK = :pk AND GSI2SK >= :since",
		values:     map[string]types.AttributeValue{":pk": s(pk), ":since": s(lo)},
		descending: true,
	}, args)
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
func (r *Repo) Locations(ctx context.Context, f LocationFilter, args PageArgs) (Page[*Location], error) {
	country, err := cleanText("country", f.Country, 1, maxLocationCountryLen, false)
	if err != nil {
		return Page[*Location]{}, err
	}
	if f.City != nil && f.State == nil {
		return Page[*Location]{}, apperr.InvalidInput("city", "city requires state")
	}
	if f.PostalCode != nil && f.City == nil {
		return Page[*Location]{}, apperr.InvalidInput("postalCode", "postalCode requires city (and state)")
	}
	var segments []string
	for _, p := range []struct {
		field string
		v     *string
		max   int
	}{{"state", f.State, maxLocationStateLen}, {"city", f.City, maxLocationCityLen}, {"postalCode", f.PostalCode, maxLocationPostalCodeLen}} {
		if p.v == nil {
			break
		}
		v, err := cleanText(p.field, *p.v, 1, p.max, false)
		if err != nil {
			return Page[*Location]{}, err
		}
		segments = append(segments, v)
	}
	pk := countryPK(country)
	q := pageQuery{
		keyCond: "PK = :pk",
		values:  map[string]types.AttributeValue{":pk": s(pk)},
	}
	prefix := locationPrefix(segments...)
	if prefix != "" {
		q.keyCond = "PK = :pk AND begins_with(SK, :prefix)"
		q.values[":prefix"] = s(prefix)
	}
	q.scope = join("locations", pk, esc(prefix))
	return queryPage[*Location](ctx, r, q, args)
}

// InverseRelations pages through the relationship items of type rel that point at target, in
// employee order: the employees of a department (AP9), the direct reports or mentees of an
// employee (AP11). It is one Query of the inverted GSI1 partition <target PK>#REL#<TYPE>; the
// caller reads the employees themselves by key (batched).
func (r *Repo) InverseRelations(ctx context.Context, rel RelationType, target string, args PageArgs) (Page[*Relation], error) {
	if err := checkID("id", target); err != nil {
		return Page[*Relation]{}, err
	}
	if !rel.valid() {
		return Page[*Relation]{}, apperr.Internal("inverse relations", errors.New("unknown relation type "+string(rel)))
	}
	pk := relationGSI1PK(rel, target)
	return queryPage[*Relation](ctx, r, pageQuery{
		index:   gsi1,
		scope:   join("inverse", pk),
		keyCond: "GSI1PK = :pk",
		values:  map[string]types.AttributeValue{":pk": s(pk)},
	}, args)
}

// TargetKey is the key of the entity the relation points at: a department or an employee.
func (r *Relation) TargetKey() (Key, error) {
	if r.Type == RelDepartment {
		return DepartmentKey(r.TargetID)
	}
	return EmployeeKey(r.TargetID)
}
