package hr

import (
	"errors"
	"strings"
	"time"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/catalog"
)

// The HR domain: Department → Employees, an employee's manager and mentor, and the Location
// hierarchy. The entity definitions below say how each item is keyed (the key table in
// docs/data-model.md is generated from them).
//
// Each of an employee's relations (its department, its manager, its mentor) is an item of its own
// under the employee, at a key known from the employee's id and the relation type (AP10), and the
// overloaded GSI1 inverts it (AP9, AP11). That way an entity can have many one-to-many relations
// without an index per relation, and changing one relation is a write to one small item. A
// department's name is duplicated onto its employees (AP19) so that listing employees with their
// department's name costs no second read; renameDepartment (write_rename.go) keeps the copies
// in step. Key spellings are at the end of this file, reads in read.go, writes in write.go.

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
func (l *Location) Key() repository.Key { return locationEntity.Key(l) }

// locationEntity is the definition of the Location item: a country's partition, sorted by the
// hierarchical key state#city#postalCode#id so that a begins_with at any level answers AP14.
var locationEntity = repository.Define(repository.EntityDef[Location, *Location]{
	Name: typeLocation,
	Key:  func(l *Location) repository.Key { return locationKey(l.Country, l.State, l.City, l.PostalCode, l.ID) },
	Examples: func() []*Location {
		return []*Location{{ID: "<locationId>", Country: "<country>", State: "<state>", City: "<city>", PostalCode: "<postalcode>"}}
	},
})

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
	// EmployeeCount counts the department's employees; Counted says it is exact (counters.go).
	EmployeeCount int  `dynamodbav:"employeeCount"`
	Counted       bool `dynamodbav:"counted"`
}

// Key implements Entity.
func (d *Department) Key() repository.Key { return departmentEntity.Key(d) }

// departmentEntity is the definition of the Department item: the root of its own partition, listed by
// name on GSI2 (AP7).
var departmentEntity = repository.Define(repository.EntityDef[Department, *Department]{
	Name: typeDepartment,
	Key:  func(d *Department) repository.Key { return DeptKey(d.ID) },
	Indexes: func(d *Department, _ int) []repository.IndexKey {
		return []repository.IndexKey{{Index: repository.GSI2, PK: repository.TypePK(typeDepartment), SK: repository.NameSortKey(d.Name, d.ID)}}
	},
	Examples: func() []*Department { return []*Department{{ID: "<departmentId>", Name: "<name>"}} },
})

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
	// DirectReportCount counts the employees this one manages; Counted says it is exact
	// (counters.go).
	DirectReportCount int `dynamodbav:"directReportCount"`
	// MenteeCount counts the employees this one mentors (a removal of it is conditioned on it).
	MenteeCount int  `dynamodbav:"menteeCount"`
	Counted     bool `dynamodbav:"counted"`
	// RelationsChangedAt is when the employee's manager or mentor last changed: the assignment
	// writes it on the employee's own item, so that the table's stream carries a change of the
	// employee (its subscribers see it), not only of the relation items.
	RelationsChangedAt *time.Time `dynamodbav:"relationsChangedAt,omitempty"`
	// WarehouseID copies the target of the employee's warehouse relation (assignWarehouse writes
	// both in one transaction), so that a level's Employee.warehouse is one BatchGetItem of the
	// warehouses, with no read of the relation items first.
	WarehouseID string `dynamodbav:"warehouseId,omitempty"`
}

// Key implements Entity.
func (e *Employee) Key() repository.Key { return employeeEntity.Key(e) }

// exampleTime stands for a time in the key table's examples.
var exampleTime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

// employeeEntity is the definition of the Employee item: the root of its partition (its relation
// items share it), by job title on GSI1 (AP12), by hire time on GSI2 (AP13) and by name on GSI3
// (AP30), all sorted by hire time.
var employeeEntity = repository.Define(repository.EntityDef[Employee, *Employee]{
	Name: TypeEmployee,
	Key:  func(e *Employee) repository.Key { return EmpKey(e.ID) },
	Indexes: func(e *Employee, _ int) []repository.IndexKey {
		hired := HireSortKey(e.HiredAt, e.ID)
		return []repository.IndexKey{{Index: repository.GSI1, PK: JobTitlePK(e.JobTitle), SK: hired}, {Index: repository.GSI2, PK: repository.TypePK(TypeEmployee), SK: hired}, {Index: repository.GSI3, PK: EmployeeNamePK(e.Name), SK: hired}}
	},
	Examples: func() []*Employee {
		return []*Employee{{ID: "<employeeId>", Name: "<name>", JobTitle: "<jobtitle>", HiredAt: exampleTime, WarehouseID: "<warehouseId>"}}
	},
	Placeholders: map[string]string{hireTime(exampleTime): "<hiredAt>"},
})

// RelationType names one kind of relationship item under an employee.
type RelationType string

// Relation types. Each is an SK value under the employee (REL#<TYPE>) and a suffix of the GSI1
// partition that inverts it; adding one needs no new index.
const (
	RelDepartment RelationType = "DEPARTMENT"
	RelManager    RelationType = "MANAGER"
	RelMentor     RelationType = "MENTOR"
	// RelWarehouse is the warehouse an employee works at (assignWarehouse): inverted on GSI1
	// like the others, it lists a warehouse's employees (AP31) with no index of its own.
	RelWarehouse RelationType = "WAREHOUSE"
)

func (t RelationType) valid() bool {
	return t == RelDepartment || t == RelManager || t == RelMentor || t == RelWarehouse
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
func (r *Relation) Key() repository.Key { return relationEntity.Key(r) }

// relationEntity is the definition of the relationship item: one per employee and relation type under
// the employee (AP10), inverted on GSI1 so that the employees related to a target are one Query
// (AP9, AP11) whatever the relation: a new relation type needs no new index.
var relationEntity = repository.Define(repository.EntityDef[Relation, *Relation]{
	Name: TypeRelation,
	Key:  func(r *Relation) repository.Key { return relationKey(r.EmployeeID, r.Type) },
	Indexes: func(r *Relation, _ int) []repository.IndexKey {
		return []repository.IndexKey{{Index: repository.GSI1, PK: relationGSI1PK(r.Type, r.TargetID), SK: relationGSI1SK(r.EmployeeID)}}
	},
	Examples: func() []*Relation {
		var out []*Relation
		for _, rel := range []RelationType{RelDepartment, RelManager, RelMentor, RelWarehouse} {
			out = append(out, &Relation{EmployeeID: "<employeeId>", Type: rel, TargetID: "<targetId>"})
		}
		return out
	},
})

// DepartmentKey, EmployeeKey, LocationKey and RelationKey are the keys of HR entities looked up
// by key (AP8, AP10, AP14 by ID). They validate their parts, which come from clients.
func DepartmentKey(id string) (repository.Key, error) {
	if err := repository.CheckID("id", id); err != nil {
		return repository.Key{}, err
	}
	return DeptKey(id), nil
}

// EmployeeKey is the key of an employee's root item.
func EmployeeKey(id string) (repository.Key, error) {
	if err := repository.CheckID("id", id); err != nil {
		return repository.Key{}, err
	}
	return EmpKey(id), nil
}

// LocationKey is the key of a location. The parts are re-validated with the rules createLocation
// applies, so a forged global ID cannot build a key createLocation would refuse.
func LocationKey(ref LocationRef) (repository.Key, error) {
	if _, err := cleanLocationRef(ref); err != nil || ref.ID == "" {
		return repository.Key{}, apperr.InvalidInput("id", "not a valid location id")
	}
	return locationKey(ref.Country, ref.State, ref.City, ref.PostalCode, ref.ID), nil
}

// RelationKey is the key of employee e's relation of type rel (AP10).
func RelationKey(e string, rel RelationType) (repository.Key, error) {
	if err := repository.CheckID("id", e); err != nil {
		return repository.Key{}, err
	}
	if !rel.valid() {
		return repository.Key{}, apperr.Internal("relation key", errors.New("unknown relation type "+string(rel)))
	}
	return relationKey(e, rel), nil
}

// cleanLocationRef trims and checks the key parts of a location (and its id, when set); the
// error names the first field at fault.
func cleanLocationRef(ref LocationRef) (LocationRef, error) {
	var err error
	if ref.Country, err = repository.CleanText("country", ref.Country, 1, repository.MaxCountryLen, false); err != nil {
		return ref, err
	}
	if ref.State, err = repository.CleanText("state", ref.State, 1, repository.MaxStateLen, false); err != nil {
		return ref, err
	}
	if ref.City, err = repository.CleanText("city", ref.City, 1, repository.MaxCityLen, false); err != nil {
		return ref, err
	}
	if ref.PostalCode, err = repository.CleanText("postalCode", ref.PostalCode, 1, repository.MaxPostalCodeLen, false); err != nil {
		return ref, err
	}
	if ref.ID != "" {
		if err := repository.CheckID("id", ref.ID); err != nil {
			return ref, err
		}
	}
	return ref, nil
}

// Hire times the API accepts. The fixed-width sort key needs a four-digit year.
var (
	MinHireTime = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	maxHireTime = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// TargetKey is the key of the entity the relation points at: a department or an employee.
func (r *Relation) TargetKey() (repository.Key, error) {
	switch r.Type {
	case RelDepartment:
		return DepartmentKey(r.TargetID)
	case RelWarehouse:
		return catalog.WarehouseKey(r.TargetID)
	}
	return EmployeeKey(r.TargetID)
}

// --- Keys: how the HR domain's items are spelled in the table ---

// Item types of the HR domain.
const (
	typeDepartment = "Department"
	TypeEmployee   = "Employee"
	typeLocation   = "Location"
	// TypeRelation is a relationship item: one per (employee, relation type), under the employee.
	TypeRelation = "EmployeeRelation"
)

func deptPK(d string) string { return repository.Join("DEPT", d) }

// DeptKey: a department is the root item of its own partition.
func DeptKey(d string) repository.Key {
	k := deptPK(d)
	return repository.Key{PK: k, SK: k}
}

func EmpPK(e string) string { return repository.Join("EMP", e) }

// EmpKey is the employee's root item; its relationship items share the
// partition under REL# sort keys.
func EmpKey(e string) repository.Key {
	k := EmpPK(e)
	return repository.Key{PK: k, SK: k}
}

const relSKPrefix = "REL#"

// relationKey is the one relationship item of type rel under employee e. One key per (employee,
// type) is what makes "an employee belongs to exactly one department" (and has at most one
// manager and one mentor) a property of the key itself, not of application code.
func relationKey(e string, rel RelationType) repository.Key {
	return repository.Key{PK: EmpPK(e), SK: relationSK(rel)}
}

// relationSK is REL#<TYPE>; the known types' are constants, which cost no allocation.
func relationSK(rel RelationType) string {
	switch rel {
	case RelDepartment:
		return relSKPrefix + string(RelDepartment)
	case RelManager:
		return relSKPrefix + string(RelManager)
	case RelMentor:
		return relSKPrefix + string(RelMentor)
	case RelWarehouse:
		return relSKPrefix + string(RelWarehouse)
	}
	return relSKPrefix + string(rel)
}

// relationTargetPK is the partition key of the entity a relation of type rel points at. A new
// relation type is one more case here and one more SK value: never a new index, however many
// one-to-many relations an entity has.
func relationTargetPK(rel RelationType, target string) string {
	switch rel {
	case RelDepartment:
		return deptPK(target)
	case RelWarehouse:
		return catalog.WarehousePK(target)
	default: // RelManager, RelMentor: employees
		return EmpPK(target)
	}
}

// relationGSI1PK inverts a relationship item on GSI1: all items of type rel pointing at target
// share the partition "<target's PK>#REL#<TYPE>" (DEPT#<d>#REL#DEPARTMENT, EMP#<m>#REL#MANAGER,
// EMP#<m>#REL#MENTOR), sorted by the employee (relationGSI1SK). That partition is AP9 and AP11.
func relationGSI1PK(rel RelationType, target string) string {
	return repository.Join(relationTargetPK(rel, target), "REL", string(rel))
}

func relationGSI1SK(e string) string { return EmpPK(e) }

// JobTitlePK is AP12's GSI1 partition: employees with one job title, compared without case.
func JobTitlePK(title string) string { return repository.Join("JOBTITLE", repository.FoldKey(title)) }

// EmployeeNamePK is AP30's GSI3 partition: the employees with one name, compared without case
// (trimmed, lower case, escaped like every value in a key).
func EmployeeNamePK(name string) string { return repository.Join("EMPNAME", repository.FoldKey(name)) }

// hireTimeLayout writes a hire time in UTC with a fixed width, so that the strings sort in time
// order (RFC 3339 with a variable fraction does not: "…05Z" > "…05.5Z").
const hireTimeLayout = "2006-01-02T15:04:05.000000000Z"

func hireTime(t time.Time) string { return t.UTC().Format(hireTimeLayout) }

// HireSortKey orders employees by hire time, ties broken by id (AP12's GSI1SK, AP13's GSI2SK).
// A bound "<since>" sorts before every key of that instant, so `GSI2SK >= <since>` includes it.
func HireSortKey(t time.Time, e string) string { return repository.Join(hireTime(t), e) }

// countryPK is a country's partition of locations (AP14). Keys are case-folded; the display
// values live in the item.
func countryPK(country string) string { return repository.Join("COUNTRY", repository.FoldKey(country)) }

// locationSK is the composite, hierarchical sort key <state>#<city>#<postalCode>#<id>: a
// begins_with on its leading segments selects a state, a city or a postal code. Each user-supplied segment is escaped, so no value can contain the delimiter.
func locationSK(state, city, postalCode, id string) string {
	return repository.Join(repository.FoldKey(state), repository.FoldKey(city), repository.FoldKey(postalCode), id)
}

func locationKey(country, state, city, postalCode, id string) repository.Key {
	return repository.Key{PK: countryPK(country), SK: locationSK(state, city, postalCode, id)}
}

// locationPrefix is the begins_with prefix of AP14 for the given leading segments (state; state
// and city; state, city and postal code). It always ends with the delimiter, so the prefix of
// "San Jose" cannot match "San Jose Heights", and an escaped segment cannot end early.
func locationPrefix(segments ...string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteString(repository.FoldKey(s))
		b.WriteString(repository.Delim)
	}
	return b.String()
}
