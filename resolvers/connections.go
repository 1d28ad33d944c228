package resolvers

import (
	"singletable/graph/model"
	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// The connection of each list's page (Relay: edges with their cursors, and the page's info), one
// per node type. A connection with a totalCount is given the count the list's parent keeps by
// counted (repository.Count): the resolver has the parent, read already, so the count costs no
// call. Without counted, the totalCount of a list that no counter follows is null.

// counted is build with its connection's totalCount set to total.
func counted[T any, C interface{ SetCount(repository.Count) }](total repository.Count, build func(repository.Page[T]) C) func(repository.Page[T]) C {
	return func(p repository.Page[T]) C {
		c := build(p)
		c.SetCount(total)
		return c
	}
}

func organizationConnection(p repository.Page[*saas.Organization]) *model.OrganizationConnection {
	return &model.OrganizationConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.OrganizationEdge, n *model.Organization, c model.Cursored, o *saas.Organization) {
		n.Organization, *e = o, model.OrganizationEdge{Cursored: c, Node: n}
	})}
}

func userConnection(p repository.Page[*saas.User]) *model.UserConnection {
	return &model.UserConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.UserEdge, n *model.User, c model.Cursored, u *saas.User) {
		n.User, *e = u, model.UserEdge{Cursored: c, Node: n}
	})}
}

func ticketConnection(p repository.Page[*saas.Ticket]) *model.TicketConnection {
	return &model.TicketConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.TicketEdge, n *model.Ticket, c model.Cursored, t *saas.Ticket) {
		n.Ticket, *e = t, model.TicketEdge{Cursored: c, Node: n}
	})}
}

func ticketVersionConnection(p repository.Page[*saas.TicketVersion]) *model.TicketVersionConnection {
	return &model.TicketVersionConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.TicketVersionEdge, _ *struct{}, c model.Cursored, v *saas.TicketVersion) {
		*e = model.TicketVersionEdge{Cursored: c, Node: v}
	})}
}

func departmentConnection(p repository.Page[*hr.Department]) *model.DepartmentConnection {
	return &model.DepartmentConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.DepartmentEdge, n *model.Department, c model.Cursored, d *hr.Department) {
		n.Department, *e = d, model.DepartmentEdge{Cursored: c, Node: n}
	})}
}

func employeeConnection(p repository.Page[*hr.Employee]) *model.EmployeeConnection {
	return &model.EmployeeConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.EmployeeEdge, n *model.Employee, c model.Cursored, emp *hr.Employee) {
		n.Employee, *e = emp, model.EmployeeEdge{Cursored: c, Node: n}
	})}
}

func locationConnection(p repository.Page[*hr.Location]) *model.LocationConnection {
	return &model.LocationConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.LocationEdge, n *model.Location, c model.Cursored, l *hr.Location) {
		n.Location, *e = l, model.LocationEdge{Cursored: c, Node: n}
	})}
}

func customerConnection(p repository.Page[*commerce.Customer]) *model.CustomerConnection {
	return &model.CustomerConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.CustomerEdge, n *model.Customer, c model.Cursored, cu *commerce.Customer) {
		n.Customer, *e = cu, model.CustomerEdge{Cursored: c, Node: n}
	})}
}

func orderConnection(p repository.Page[*commerce.Order]) *model.OrderConnection {
	return &model.OrderConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.OrderEdge, n *model.Order, c model.Cursored, o *commerce.Order) {
		n.Order, *e = o, model.OrderEdge{Cursored: c, Node: n}
	})}
}

func productConnection(p repository.Page[*catalog.Product]) *model.ProductConnection {
	return &model.ProductConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.ProductEdge, n *model.Product, c model.Cursored, pr *catalog.Product) {
		n.Product, *e = pr, model.ProductEdge{Cursored: c, Node: n}
	})}
}

func warehouseConnection(p repository.Page[*catalog.Warehouse]) *model.WarehouseConnection {
	return &model.WarehouseConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.WarehouseEdge, n *model.Warehouse, c model.Cursored, w *catalog.Warehouse) {
		n.Warehouse, *e = w, model.WarehouseEdge{Cursored: c, Node: n}
	})}
}

func orderItemConnection(p repository.Page[*commerce.OrderItem]) *model.OrderItemConnection {
	return &model.OrderItemConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.OrderItemEdge, n *model.OrderItem, c model.Cursored, it *commerce.OrderItem) {
		n.OrderItem, *e = it, model.OrderItemEdge{Cursored: c, Node: n}
	})}
}

func jobHistoryConnection(p repository.Page[*hr.JobHistory]) *model.JobHistoryConnection {
	return &model.JobHistoryConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.JobHistoryEdge, _ *struct{}, c model.Cursored, j *hr.JobHistory) {
		*e = model.JobHistoryEdge{Cursored: c, Node: j}
	})}
}
