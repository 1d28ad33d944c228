package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

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

// employeeAheadFor reads, from the selection of the employee connection being resolved, which
// AP10 relations the operation asks for on each employee (edges { node { department manager
// mentor } }), so that the list looks them up for all its employees at once (loaders.EmployeeAhead).
func employeeAheadFor(ctx context.Context) loaders.EmployeeAhead {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil {
		return loaders.EmployeeAhead{}
	}
	return employeeAheadOf(ctx, fc.Field.Selections)
}

// employeeAheadOf is employeeAheadFor for the selection set of an employee connection field.
func employeeAheadOf(ctx context.Context, sels ast.SelectionSet) loaders.EmployeeAhead {
	var a loaders.EmployeeAhead
	for _, f := range nodeSelectionOf(graphql.GetOperationContext(ctx), sels, "EmployeeConnection", "EmployeeEdge", model.TypeEmployee) {
		switch f.Name {
		case "department":
			a.Department = true
		case "manager":
			a.Manager = true
			a.OfManager = relationsAheadOf(ctx, f)
		case "mentor":
			a.Mentor = true
			a.OfMentor = relationsAheadOf(ctx, f)
		}
	}
	return a
}

// relationsAheadOf reads which relations the operation asks for on an employee's manager or
// mentor (field f: manager { department { name } }, say), so that the list reads them one level
// further ahead, with the manager or mentor itself.
func relationsAheadOf(ctx context.Context, f graphql.CollectedField) loaders.RelationsAhead {
	var r loaders.RelationsAhead
	for _, g := range graphql.CollectFields(graphql.GetOperationContext(ctx), f.Selections, []string{model.TypeEmployee, "Node"}) {
		switch g.Name {
		case "department":
			r.Department = true
		case "manager":
			r.Manager = true
		case "mentor":
			r.Mentor = true
		}
	}
	return r
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
	var names []string
	for _, f := range connectionNodeSelection(ctx, conn, edge, node) {
		names = append(names, f.Name)
	}
	return names
}

// connectionNodeSelection is the fields the operation selects on the nodes of the connection
// field being resolved, with their own selections.
func connectionNodeSelection(ctx context.Context, conn, edge, node string) []graphql.CollectedField {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil {
		return nil
	}
	return nodeSelectionOf(graphql.GetOperationContext(ctx), fc.Field.Selections, conn, edge, node)
}

// nodeSelectionOf is the fields selected on the nodes of a connection whose selection set is sels.
func nodeSelectionOf(opCtx *graphql.OperationContext, sels ast.SelectionSet, conn, edge, node string) []graphql.CollectedField {
	var fields []graphql.CollectedField
	for _, e := range graphql.CollectFields(opCtx, sels, []string{conn}) {
		if e.Name != "edges" {
			continue
		}
		for _, n := range graphql.CollectFields(opCtx, e.Selections, []string{edge}) {
			if n.Name != "node" {
				continue
			}
			fields = append(fields, graphql.CollectFields(opCtx, n.Selections, []string{node, "Node"})...)
		}
	}
	return fields
}

// startDepartmentEmployees starts the employee lists (AP9) that the current field (department or
// nodes) asks for on the departments ids, before the departments themselves are read:
// their ids are known from the global IDs, so the lists' Queries run alongside the departments'
// lookup instead of one round after it. The resolvers of Department.employees then find the
// lists under the same key in the list loader. Only the plain form is started (one `employees`
// field without `after`), so that a started list is always the one asked for.
func startDepartmentEmployees(ctx context.Context, ids []string) {
	if len(ids) == 0 {
		return
	}
	list, args, ok := soleChildList(ctx, model.TypeDepartment, "employees")
	first := firstArg(args)
	if !ok || args["after"] != nil || first == 0 {
		return
	}
	ahead := employeeAheadOf(ctx, list.Selections)
	l := loaders.For(ctx)
	for _, id := range ids {
		l.StartEmployeesOfDepartment(ctx, id, repository.PageArgs{First: first}, ahead)
	}
}

// soleChildList is the one field named name that the current field (nodes, department, …)
// selects on objects of type typ, with its arguments; ok is false when there is none or several
// (aliases with other arguments), or in per-parent mode: a child list started ahead must be the
// one its resolver will ask for.
func soleChildList(ctx context.Context, typ, name string) (graphql.CollectedField, map[string]any, bool) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || !loaders.For(ctx).ReadAhead() {
		return graphql.CollectedField{}, nil, false
	}
	opCtx := graphql.GetOperationContext(ctx)
	var lists []graphql.CollectedField
	for _, f := range graphql.CollectFields(opCtx, fc.Field.Selections, []string{typ, "Node"}) {
		if f.Name == name {
			lists = append(lists, f)
		}
	}
	if len(lists) != 1 {
		return graphql.CollectedField{}, nil, false
	}
	return lists[0], lists[0].ArgumentMap(opCtx.Variables), true
}
