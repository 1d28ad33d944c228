package resolvers

import (
	"context"

	"singletable/graph/model"
	"singletable/loaders"
	"singletable/repository"
)

// idOf decodes the global ID of an object of type want given in an input field and returns its
// one key part.
func idOf(field, id, want string) (string, error) {
	parts, err := model.DecodeIDOf(field, id, want)
	if err != nil {
		return "", err
	}
	return parts[0], nil
}

// optionalIDOf is idOf for an optional input field.
func optionalIDOf(field string, id *string, want string) (*string, error) {
	if id == nil {
		return nil, nil
	}
	v, err := idOf(field, *id, want)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// remember hands what a mutation wrote to the request's loaders, so that the fields of the
// mutation's result read it back as written.
func remember[T repository.Entity](ctx context.Context, written ...T) {
	entities := make([]repository.Entity, len(written))
	for i, e := range written {
		entities[i] = e
	}
	loaders.For(ctx).Remember(ctx, entities...)
}

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
