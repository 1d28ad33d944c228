package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"singletable/graph/model"
	"singletable/loaders"
	"singletable/repository"
)

// hrNode fetches a Department, Employee or Location by the key parts of its global ID.
func (r *Resolver) hrNode(ctx context.Context, typ string, parts []string) (model.Node, error) {
	l := loaders.For(ctx)
	switch typ {
	case model.TypeDepartment:
		d, err := l.Department(ctx, parts[0])
		if err != nil {
			return nil, err
		}
		return &model.Department{Department: d}, nil
	case model.TypeEmployee:
		e, err := l.Employee(ctx, parts[0])
		if err != nil {
			return nil, err
		}
		return &model.Employee{Employee: e}, nil
	default: // model.TypeLocation
		loc, err := l.Location(ctx, model.LocationRefOf(parts))
		if err != nil {
			return nil, err
		}
		return &model.Location{Location: loc}, nil
	}
}

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
	return &model.DepartmentConnection{PageInfo: pageInfo(p), Edges: edges(p, func(c string, d *repository.Department) *model.DepartmentEdge {
		return &model.DepartmentEdge{Cursor: c, Node: &model.Department{Department: d}}
	})}
}

func employeeConnection(p repository.Page[*repository.Employee]) *model.EmployeeConnection {
	return &model.EmployeeConnection{PageInfo: pageInfo(p), Edges: edges(p, func(c string, e *repository.Employee) *model.EmployeeEdge {
		return &model.EmployeeEdge{Cursor: c, Node: &model.Employee{Employee: e}}
	})}
}

func locationConnection(p repository.Page[*repository.Location]) *model.LocationConnection {
	return &model.LocationConnection{PageInfo: pageInfo(p), Edges: edges(p, func(c string, l *repository.Location) *model.LocationEdge {
		return &model.LocationEdge{Cursor: c, Node: &model.Location{Location: l}}
	})}
}

func employeeOrNil(e *repository.Employee, err error) (*model.Employee, error) {
	if err != nil || e == nil {
		return nil, err
	}
	return &model.Employee{Employee: e}, nil
}

// employeeAheadFor reads, from the selection of the employee connection being resolved, which
// AP10 relations the operation asks for on each employee (edges { node { department manager
// mentor } }), so that the list looks them up for all its employees at once (loaders.EmployeeAhead).
func employeeAheadFor(ctx context.Context) loaders.EmployeeAhead {
	var a loaders.EmployeeAhead
	for _, name := range connectionNodeFields(ctx, "EmployeeConnection", "EmployeeEdge", model.TypeEmployee) {
		switch name {
		case "department":
			a.Department = true
		case "manager":
			a.Manager = true
		case "mentor":
			a.Mentor = true
		}
	}
	return a
}

// departmentsWantLocation reports whether a department connection's nodes ask for `location`.
func departmentsWantLocation(ctx context.Context) bool {
	for _, name := range connectionNodeFields(ctx, "DepartmentConnection", "DepartmentEdge", model.TypeDepartment) {
		if name == "location" {
			return true
		}
	}
	return false
}

// connectionNodeFields lists the fields the operation selects on the nodes of the connection field
// being resolved (fragments and @skip/@include applied).
func connectionNodeFields(ctx context.Context, conn, edge, node string) []string {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil {
		return nil
	}
	opCtx := graphql.GetOperationContext(ctx)
	var names []string
	for _, e := range graphql.CollectFields(opCtx, fc.Field.Selections, []string{conn}) {
		if e.Name != "edges" {
			continue
		}
		for _, n := range graphql.CollectFields(opCtx, e.Selections, []string{edge}) {
			if n.Name != "node" {
				continue
			}
			for _, f := range graphql.CollectFields(opCtx, n.Selections, []string{node, "Node"}) {
				names = append(names, f.Name)
			}
		}
	}
	return names
}
