package resolvers

import (
	"singletable/graph/model"
	"singletable/repository"
)

func customerConnection(p repository.Page[*repository.Customer]) *model.CustomerConnection {
	return &model.CustomerConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.CustomerEdge, n *model.Customer, c model.Cursored, cu *repository.Customer) {
		n.Customer = cu
		*e = model.CustomerEdge{Cursored: c, Node: n}
	})}
}

func orderConnection(p repository.Page[*repository.Order]) *model.OrderConnection {
	return &model.OrderConnection{PageInfo: pageInfo(p), Edges: edges(p, func(e *model.OrderEdge, n *model.Order, c model.Cursored, o *repository.Order) {
		n.Order = o
		*e = model.OrderEdge{Cursored: c, Node: n}
	})}
}

// orderItems wraps an order's items (loaders.OrderItems) as their GraphQL objects.
func orderItems(items []*repository.OrderItem, err error) ([]*model.OrderItem, error) {
	if err != nil {
		return nil, err
	}
	objs := make([]model.OrderItem, len(items)) // one allocation for the list
	out := make([]*model.OrderItem, len(items))
	for i, it := range items {
		objs[i].OrderItem = it
		out[i] = &objs[i]
	}
	return out, nil
}
