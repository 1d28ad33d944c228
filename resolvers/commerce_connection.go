package resolvers

import (
	"singletable/graph/model"
	"singletable/repository"
)

func customerConnection(p repository.Page[*repository.Customer]) *model.CustomerConnection {
	return &model.CustomerConnection{PageInfo: pageInfo(p), Edges: edges(p, func(c model.Cursored, cu *repository.Customer) *model.CustomerEdge {
		return &model.CustomerEdge{Cursored: c, Node: &model.Customer{Customer: cu}}
	})}
}

func orderConnection(p repository.Page[*repository.Order]) *model.OrderConnection {
	return &model.OrderConnection{PageInfo: pageInfo(p), Edges: edges(p, func(c model.Cursored, o *repository.Order) *model.OrderEdge {
		return &model.OrderEdge{Cursored: c, Node: &model.Order{Order: o}}
	})}
}

// orderItems wraps an order's items (loaders.OrderItems) as their GraphQL objects.
func orderItems(items []*repository.OrderItem, err error) ([]*model.OrderItem, error) {
	if err != nil {
		return nil, err
	}
	out := make([]*model.OrderItem, len(items))
	for i, it := range items {
		out[i] = &model.OrderItem{OrderItem: it}
	}
	return out, nil
}
