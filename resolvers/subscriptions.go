package resolvers

import (
	"context"

	"singletable/apperr"
	"singletable/auth"
	"singletable/graph/model"
	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
	"singletable/repository/stream"
)

// Subscriptions (graph/subscriptions.graphqls). A subscription is checked once, when it opens, as
// a query is: the server has already refused the roles its policy does not list (FORBIDDEN), and
// its arguments are decoded with their node descriptors and checked against the caller's scope
// from the IDs alone (BAD_USER_INPUT for a malformed ID, NOT_FOUND for one outside the scope,
// exactly as a query answers; nothing is read, so nothing tells whether the object exists). It
// then gets, from the hub, the changes of the table's stream its filter accepts: those its
// arguments select AND whose every image (the object after the write, and before it) lies in the
// caller's scope, decided from the changed object itself with its descriptor's EntityScope. The
// second test repeats what the checked arguments already imply: it is there so that a mistake in
// one filter can never deliver another tenant's object. Only the type a field is about produces
// events: an order's items, relation items and uniqueness guards never do.

// errNoHub answers a subscription where no hub reads the table's stream (AWS Lambda).
var errNoHub = apperr.New(apperr.CodeUnavailable, "this deployment does not serve subscriptions; subscribe to the API's server instances")

// subscriptionArg decodes an ID given in a subscription's argument field with its descriptor and
// checks it against the caller's scope from the ID alone (model.NodeType.Input; no type a
// subscription names has IDs that need a read to complete): the reference, BAD_USER_INPUT for a
// malformed ID, or NOT_FOUND (naming kind, or the descriptor's Kind when "") for an ID outside the
// scope.
func subscriptionArg[E repository.Entity, M model.Node, R any](ctx context.Context, d model.NodeType[E, M, R], field, id, kind string) (R, error) {
	return d.Input(ctx, nil, field, id, kind)
}

// ticketChanges is ticketChanged's filter: tickets of org (reported by reporter, when given).
func ticketChanges(ctx context.Context, organizationID string, reporterID *string) (changeFeed, error) {
	org, err := subscriptionArg(ctx, model.Organizations, "organizationId", organizationID, "")
	if err != nil {
		return changeFeed{}, err
	}
	reporter := ""
	if reporterID != nil {
		ref, err := subscriptionArg(ctx, model.Users, "reporterId", *reporterID, "reporter")
		if err != nil {
			return changeFeed{}, err
		}
		if ref.Org != org {
			// No user of the organization has this ID: what a missing reporter gets.
			return changeFeed{}, auth.Hidden("reporter")
		}
		reporter = ref.ID
	}
	return changeFeed{stream.TicketChangeScope(org, reporter), changesOf(ctx, model.Tickets, func(t *saas.Ticket) bool {
		return t.OrgID == org && (reporter == "" || t.ReporterID == reporter)
	})}, nil
}

// orderChanges is orderChanged's filter: orders of the customer given, of a customer's own
// customer when it gives none, or every customer's for the roles that see them all.
func orderChanges(ctx context.Context, customerID *string) (changeFeed, error) {
	customer, narrowed := auth.Caller(ctx).OwnCustomer()
	if customerID != nil {
		var err error
		if customer, err = subscriptionArg(ctx, model.Customers, "customerId", *customerID, ""); err != nil {
			return changeFeed{}, err
		}
		narrowed = true
	}
	if !narrowed {
		customer = ""
	}
	return changeFeed{stream.OrderChangeScope(customer), changesOf(ctx, model.Orders, func(o *commerce.Order) bool {
		return !narrowed || o.CustomerID == customer
	})}, nil
}

// employeeChanges is employeeChanged's filter: employees in the department given before or after
// the write (so a transfer out of it is delivered too), or all of them.
func employeeChanges(ctx context.Context, departmentID *string) (changeFeed, error) {
	dept := ""
	if departmentID != nil {
		var err error
		if dept, err = subscriptionArg(ctx, model.Departments, "departmentId", *departmentID, ""); err != nil {
			return changeFeed{}, err
		}
	}
	return changeFeed{stream.EmployeeChangeScope(dept), changesOf(ctx, model.Employees, func(e *hr.Employee) bool {
		return dept == "" || e.DepartmentID == dept
	})}, nil
}

// changesOf is the filter of a subscription to d's objects for the caller of ctx: a change is
// accepted when it is about an object of d's type, every image it carries lies in the caller's
// scope, and one of them matches. It runs for every change the stream delivers, while the hub's
// lock is held: it reads the images and allocates nothing.
func changesOf[E repository.Entity, M model.Node, R any](ctx context.Context, d model.NodeType[E, M, R], match func(E) bool) func(stream.Change) bool {
	caller := auth.Caller(ctx)
	return func(c stream.Change) bool {
		images, n := imagesOf[E](c)
		if n == 0 {
			return false
		}
		matched := false
		for _, e := range images[:n] {
			if caller.Sees(d.EntityScope(e)) != auth.Allow {
				return false
			}
			matched = matched || match(e)
		}
		return matched
	}
}

// imagesOf are c's images (after the write, then before it) as entities of type E, and how many
// there are: none when c is about an entity of another type.
func imagesOf[E repository.Entity](c stream.Change) (images [2]E, n int) {
	for _, img := range [2]repository.Entity{c.New, c.Old} {
		if img == nil {
			continue
		}
		e, ok := img.(E)
		if !ok {
			return images, 0
		}
		images[n] = e
		n++
	}
	return images, n
}

// changeKinds are the schema's names of the repository's kinds of change.
var changeKinds = map[stream.ChangeKind]model.ChangeKind{
	stream.ChangeCreated: model.ChangeKindCreated,
	stream.ChangeUpdated: model.ChangeKindUpdated,
	stream.ChangeRemoved: model.ChangeKindRemoved,
}

// ticketChange is the event of a change a ticket subscription accepted: the ticket from the
// stream's image (after the write; before it for a removal), and its previous status when the
// write changed it.
func ticketChange(c *stream.Change, cur model.Cursored) *model.TicketChange {
	t := c.Entity().(*saas.Ticket)
	return &model.TicketChange{Cursored: cur, Kind: changeKinds[c.Kind], Ticket: model.Tickets.Wrap(t),
		PreviousStatus: previousStatus(c, t, func(t *saas.Ticket) saas.TicketStatus { return t.Status })}
}

// orderChange is ticketChange for an order.
func orderChange(c *stream.Change, cur model.Cursored) *model.OrderChange {
	o := c.Entity().(*commerce.Order)
	return &model.OrderChange{Cursored: cur, Kind: changeKinds[c.Kind], Order: model.Orders.Wrap(o),
		PreviousStatus: previousStatus(c, o, func(o *commerce.Order) commerce.OrderStatus { return o.Status })}
}

// previousStatus is the status (status of an entity) the entity had before change c, when c
// changed it from that to now's; nil for a creation, a removal, or a write that kept it.
func previousStatus[E any, S comparable](c *stream.Change, now E, status func(E) S) *S {
	old, ok := c.Old.(E)
	if !ok || c.New == nil || status(old) == status(now) {
		return nil
	}
	prev := status(old)
	return &prev
}

// employeeChange is the event of a change an employee subscription accepted.
func employeeChange(c *stream.Change, cur model.Cursored) *model.EmployeeChange {
	return &model.EmployeeChange{Cursored: cur, Kind: changeKinds[c.Kind], Employee: model.Employees.Wrap(c.Entity().(*hr.Employee))}
}

// inventoryChanges is inventoryChanged's filter: the changes of the product given. Every stock
// write changes the product's total in its transaction, so the product item's changes are the
// stock's.
func inventoryChanges(ctx context.Context, productID string) (changeFeed, error) {
	product, err := subscriptionArg(ctx, model.Products, "productId", productID, "")
	if err != nil {
		return changeFeed{}, err
	}
	return changeFeed{stream.InventoryChangeScope(product), changesOf(ctx, model.Products, func(p *catalog.Product) bool { return p.ID == product })}, nil
}

// inventoryChange is the event of a change an inventory subscription accepted.
func inventoryChange(c *stream.Change, cur model.Cursored) *model.InventoryChange {
	p := c.Entity().(*catalog.Product)
	ev := &model.InventoryChange{Cursored: cur, Kind: changeKinds[c.Kind], Product: model.Products.Wrap(p)}
	if old, ok := c.Old.(*catalog.Product); ok {
		prev := old.TotalInventory
		ev.PreviousTotalInventory = &prev
	}
	return ev
}
