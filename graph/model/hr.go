package model

import (
	"singletable/repository/hr"
)

// Department is the GraphQL Department.
type Department struct {
	*hr.Department
}

// IsNode marks Department as a Node.
func (Department) IsNode() {}

// GetID is the global ID.
func (d Department) GetID() string { return Departments.ID(d.Department) }

// Employee is the GraphQL Employee.
type Employee struct {
	*hr.Employee
}

// IsNode marks Employee as a Node.
func (Employee) IsNode() {}

// GetID is the global ID.
func (e Employee) GetID() string { return Employees.ID(e.Employee) }

// Location is the GraphQL Location.
type Location struct {
	*hr.Location
}

// IsNode marks Location as a Node.
func (Location) IsNode() {}

// GetID is the global ID: a location's whole key (Locations).
func (l Location) GetID() string { return Locations.ID(l.Location) }
