package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"singletable/graph/model"
	"singletable/loaders"
	"singletable/repository"
)

// customerOrdersReadAhead is `first` of Customer.orders when the selection asks for it without
// `after` or filters, the form that ONE Query of the customer's collection answers together with
// the customer itself (see repository.CustomerWithOrders); 0 otherwise.
func customerOrdersReadAhead(opCtx *graphql.OperationContext, sel ast.SelectionSet) int {
	for _, f := range graphql.CollectFields(opCtx, sel, []string{model.TypeCustomer, "Node"}) {
		args := f.ArgumentMap(opCtx.Variables)
		if f.Name == "orders" && args["after"] == nil && args["status"] == nil && args["placedAfter"] == nil && args["placedBefore"] == nil {
			return firstArg(args)
		}
	}
	return 0
}

// customer fetches a customer by id: with its first page of orders (and their items) in one Query
// when the operation asks for them in that form, else by key through the loader.
func (r *Resolver) customer(ctx context.Context, id string, ra readAhead) (*model.Customer, error) {
	l := loaders.For(ctx)
	if ra.customerOrdersFirst > 0 {
		c, orders, err := l.CustomerWithOrders(ctx, id, ra.customerOrdersFirst)
		if err != nil {
			return nil, err
		}
		return &model.Customer{Customer: c, OrdersAhead: &orders, OrdersAheadFirst: ra.customerOrdersFirst}, nil
	}
	c, err := l.Customer(ctx, id)
	if err != nil {
		return nil, err
	}
	return &model.Customer{Customer: c}, nil
}

// orderItemsReadAhead reports whether the selection asks for an order's items: one order asked
// for by ID is then read with its items in one Query.
func orderItemsReadAhead(opCtx *graphql.OperationContext, sel ast.SelectionSet) bool {
	for _, f := range graphql.CollectFields(opCtx, sel, []string{model.TypeOrder, "Node"}) {
		if f.Name == "items" {
			return true
		}
	}
	return false
}

// order fetches an order by its customer's and its own id: with its items in one Query when the
// operation asks for them (ra.orderItems; AP18 + AP17), else by key through the loader (AP18).
func (r *Resolver) order(ctx context.Context, customer, id string, ra readAhead) (*model.Order, error) {
	l := loaders.For(ctx)
	if ra.orderItems {
		o, _, err := l.OrderWithItems(ctx, customer, id)
		if err != nil {
			return nil, err
		}
		return &model.Order{Order: o}, nil
	}
	o, err := l.Order(ctx, customer, id)
	if err != nil {
		return nil, err
	}
	return &model.Order{Order: o}, nil
}

// startCustomerOrders starts, for the customers nodes(ids:) fetches, the status-filtered order
// lists the operation asks for, in one loop: such lists come from GSI1 without their items, and
// started together they meet in one level batch, so that all their items are looked up in one
// BatchGetItem (loaders.StartOrdersOfCustomer). Only the plain filtered form is started (one
// `orders` field with a status and no `after` or placed range), so that a started list is always
// the one its resolver asks for.
func startCustomerOrders(ctx context.Context, customers []string) {
	if len(customers) == 0 {
		return
	}
	list, args, found := soleChildList(ctx, model.TypeCustomer, "orders")
	if !found {
		return
	}
	status, ok := args["status"].(string)
	first := firstArg(args)
	if !ok || first == 0 || args["after"] != nil || args["placedAfter"] != nil || args["placedBefore"] != nil {
		return
	}
	withItems := false
	for _, f := range nodeSelectionOf(graphql.GetOperationContext(ctx), list.Selections, "OrderConnection", "OrderEdge", model.TypeOrder) {
		withItems = withItems || f.Name == "items"
	}
	s := repository.OrderStatus(status)
	l := loaders.For(ctx)
	for _, c := range customers {
		l.StartOrdersOfCustomer(ctx, c, repository.OrderFilter{Status: &s}, repository.PageArgs{First: first}, withItems)
	}
}
