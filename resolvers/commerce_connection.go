package resolvers

import (
	"singletable/graph/model"
	"singletable/repository"
)

func customerConnection(p repository.Page[*repository.Customer]) *model.CustomerConnection {
	return &model.CustomerConnection{PageInfo: pageInfo(p), Edges: edges(p, func(c string, cu *repository.Customer) *model.CustomerEdge {
		return &model.CustomerEdge{Cursor: c, Node: &model.Customer{Customer: cu}}
	})}
}

func orderConnection(p repository.Page[*repository.Order]) *model.OrderConnection {
	return &model.OrderConnection{PageInfo: pageInfo(p), Edges: edges(p, func(c string, o *repository.Order) *model.OrderEdge {
		return &model.OrderEdge{Cursor: c, Node: &model.Order{Order: o}}
	})}
}
