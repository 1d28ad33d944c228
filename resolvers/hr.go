package resolvers

import (
	"singletable/graph/model"
	"singletable/repository"
)

func departmentConnection(p repository.Page[*repository.Department]) *model.DepartmentConnection {
	return &model.DepartmentConnection{PageInfo: pageInfo(p), Edges: edges(p, func(c model.Cursored, d *repository.Department) *model.DepartmentEdge {
		return &model.DepartmentEdge{Cursored: c, Node: &model.Department{Department: d}}
	})}
}

func employeeConnection(p repository.Page[*repository.Employee]) *model.EmployeeConnection {
	return &model.EmployeeConnection{PageInfo: pageInfo(p), Edges: edges(p, func(c model.Cursored, e *repository.Employee) *model.EmployeeEdge {
		return &model.EmployeeEdge{Cursored: c, Node: &model.Employee{Employee: e}}
	})}
}

func locationConnection(p repository.Page[*repository.Location]) *model.LocationConnection {
	return &model.LocationConnection{PageInfo: pageInfo(p), Edges: edges(p, func(c model.Cursored, l *repository.Location) *model.LocationEdge {
		return &model.LocationEdge{Cursored: c, Node: &model.Location{Location: l}}
	})}
}

func employeeOrNil(e *repository.Employee, err error) (*model.Employee, error) {
	if err != nil || e == nil {
		return nil, err
	}
	return &model.Employee{Employee: e}, nil
}
