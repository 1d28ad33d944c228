package planner

import (
	"singletable/graph/model"
	"singletable/loaders"
	"singletable/repository"
)

// employeeRelations are the Employee fields answered by a relationship item at a known key (AP10),
// by the relation type they follow.
var employeeRelations = []struct {
	field string
	rel   repository.RelationType
}{
	{"department", repository.RelDepartment},
	{"manager", repository.RelManager},
	{"mentor", repository.RelMentor},
}

// relationsOf are the relations a selection on employees asks for.
func relationsOf(s Selection) loaders.RelationsAhead {
	var r loaders.RelationsAhead
	for _, er := range employeeRelations {
		if s.Has(er.field) {
			r = r.With(er.rel)
		}
	}
	return r
}

// EmployeeAhead is what a list of employees (or nodes(ids:) over employees), whose elements the
// selection s describes, reads ahead for them: the relations asked for on each employee and, one
// level further, on each one's manager and mentor (manager { department { name } }).
func EmployeeAhead(s Selection) loaders.EmployeeAhead {
	if s.typ != model.Employees.Name {
		return loaders.EmployeeAhead{}
	}
	r := relationsOf(s)
	a := loaders.EmployeeAhead{Department: r.Department, Manager: r.Manager, Mentor: r.Mentor}
	for _, f := range s.all("manager") {
		a.OfManager = a.OfManager.Union(relationsOf(s.Child(f, model.Employees.Name)))
	}
	for _, f := range s.all("mentor") {
		a.OfMentor = a.OfMentor.Union(relationsOf(s.Child(f, model.Employees.Name)))
	}
	return a
}
