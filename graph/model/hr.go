package model

import "singletable/repository"

// Department is the GraphQL Department.
type Department struct {
	*repository.Department
}

// IsNode marks Department as a Node.
func (Department) IsNode() {}

// GetID is the global ID.
func (d Department) GetID() string { return EncodeID(TypeDepartment, d.ID) }

// Employee is the GraphQL Employee.
type Employee struct {
	*repository.Employee
}

// IsNode marks Employee as a Node.
func (Employee) IsNode() {}

// GetID is the global ID.
func (e Employee) GetID() string { return EncodeID(TypeEmployee, e.ID) }

// Location is the GraphQL Location.
type Location struct {
	*repository.Location
}

// IsNode marks Location as a Node.
func (Location) IsNode() {}

// GetID is the global ID. A location's key is its country's partition and a hierarchical sort
// key, so the ID carries every part of it: country, state, city, postal code and id.
func (l Location) GetID() string { return LocationID(l.Ref()) }

// LocationID is the global ID of the location ref names.
func LocationID(ref repository.LocationRef) string {
	return EncodeID(TypeLocation, ref.Country, ref.State, ref.City, ref.PostalCode, ref.ID)
}

// LocationRefOf turns the key parts of a location's global ID back into a reference.
func LocationRefOf(parts []string) repository.LocationRef {
	return repository.LocationRef{Country: parts[0], State: parts[1], City: parts[2], PostalCode: parts[3], ID: parts[4]}
}
