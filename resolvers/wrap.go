package resolvers

import (
	"singletable/graph/model"
	"singletable/repository/commerce"
	"singletable/repository/hr"
)

// What the to-one and item resolvers return: a loader's result, wrapped as its GraphQL object.

// employeeOrNil wraps an employee's manager or mentor (loaders.Related): nil when it has none.
func employeeOrNil(e *hr.Employee, err error) (*model.Employee, error) {
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

// orderItems wraps an order's items (loaders.OrderItems) as their GraphQL objects.
func orderItems(items []*commerce.OrderItem, err error) ([]*model.OrderItem, error) {
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
