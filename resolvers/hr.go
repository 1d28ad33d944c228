package resolvers

import (
	"singletable/graph/model"
	"singletable/repository"
)

func departmentConnection(p repository.Page[*repository.Department]) *model.DepartmentConnection {
	return &model.DepartmentConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.DepartmentEdge, n *model.Department, c model.Cursored, d *repository.Department) {
		n.Department = d
		*e = model.DepartmentEdge{Cursored: c, Node: n}
	})}
}

func employeeConnection(p repository.Page[*repository.Employee]) *model.EmployeeConnection {
	return &model.EmployeeConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.EmployeeEdge, n *model.Employee, c model.Cursored, emp *repository.Employee) {
		n.Employee = emp
		*e = model.EmployeeEdge{Cursored: c, Node: n}
	})}
}

func locationConnection(p repository.Page[*repository.Location]) *model.LocationConnection {
	return &model.LocationConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.LocationEdge, n *model.Location, c model.Cursored, l *repository.Location) {
		n.Location = l
		*e = model.LocationEdge{Cursored: c, Node: n}
	})}
}

// employeeOrNil wraps an employee's manager or mentor (loaders.Related): nil when it has none.
func employeeOrNil(e *repository.Employee, err error) (*model.Employee, error) {
	if err != nil || e == nil {
		return nil, err
	}
	return model.Employees.Wrap(e), nil
}

// wrapped adapts a descriptor's Wrap to what a loader returns: the entity's GraphQL object, or the
// loader's error. Used as wrapped(model.Departments.Wrap)(loader call).
func wrapped[E, M any](wrap func(E) M) func(E, error) (M, error) {
	return func(e E, err error) (M, error) {
		if err != nil {
			var zero M
			return zero, err
		}
		return wrap(e), nil
	}
}
