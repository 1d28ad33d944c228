package stream

import (
	"fmt"
	"strings"

	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// The change log's collections (delta sync): one partition per scope a subscription can name,
// so that a replay page is one Query on one partition, in the order of the log's sort key: the
// change's position in the log (changelog_append.go).

// typeChangeLog is the `type` of a log item. Log items are not entities: the stream's reader
// skips their own stream records (a log of the log would never end).
const typeChangeLog = "ChangeLog"

// Scope kinds of the change log: the collection PK is changeLogPrefix + kind (+ "#" + id).
const (
	changeLogPrefix = "CHANGES#"
	logOrganization = "ORG"
	logCustomer     = "CUSTOMER"
	logAllOrders    = "ORDERS"
	logDepartment   = "DEPT"
	logAllEmployees = "EMPLOYEES"
	logProduct      = "PRODUCT"
	// positionPrefix starts a log item's sort key: it sorts after every digit, so the items of
	// an earlier form of the log (keyed by the stream record's sequence number, all digits) sort
	// before every position and a Query after a position never reads them.
	positionPrefix = "P#"
)

// ChangeScope names one collection of the change log, and the narrowing argument (a reporter)
// a subscription or a pull of that collection adds: together they are what a cursor is bound to.
type ChangeScope struct {
	// Log is the collection, as its partition key without the prefix ("ORG#<o>", "ORDERS").
	Log string
	// Narrow is the narrowing argument's value ("" for none): the replay filters by it.
	Narrow string
}

// Scopes of the change log, one per collection a subscription can name.
func TicketChangeScope(org, reporter string) ChangeScope {
	return ChangeScope{Log: logOrganization + "#" + repository.Escape(org), Narrow: reporter}
}

// OrderChangeScope is the orders of customer, or every order when customer is "".
func OrderChangeScope(customer string) ChangeScope {
	if customer == "" {
		return ChangeScope{Log: logAllOrders}
	}
	return ChangeScope{Log: logCustomer + "#" + repository.Escape(customer)}
}

// EmployeeChangeScope is the employees of department (before or after each change), or every
// employee when department is "".
func EmployeeChangeScope(department string) ChangeScope {
	if department == "" {
		return ChangeScope{Log: logAllEmployees}
	}
	return ChangeScope{Log: logDepartment + "#" + repository.Escape(department)}
}

// InventoryChangeScope is the changes of one product.
func InventoryChangeScope(product string) ChangeScope {
	return ChangeScope{Log: logProduct + "#" + repository.Escape(product)}
}

// Tenant is the organization or customer a scope belongs to ("", "" for the scopes of every
// object of a type, which only the roles that see them all can name): a cursor of another
// tenant's scope is answered as an unknown object.
func (s ChangeScope) Tenant() (kind, id string) {
	kind, id, _ = strings.Cut(s.Log, "#")
	switch kind {
	case logOrganization:
		return "organization", id
	case logCustomer:
		return "customer", id
	}
	return "", ""
}

// changeLogKey is the key of the log item at position pos in the collection log: the position,
// zero-padded to the 20 digits of any uint64 so that the sort key orders as the numbers do, is
// the sort key. A position is taken once (the log's head moves past it in the same transaction),
// so an item is never written over.
func changeLogKey(log string, pos uint64) repository.Key {
	return repository.Key{PK: changeLogPrefix + log, SK: positionKey(pos)}
}

// positionKey is the sort key of position pos.
func positionKey(pos uint64) string { return fmt.Sprintf("%s%020d", positionPrefix, pos) }

// changeLogs are the collections a change is appended to: every scope a subscription can name
// that the object lies in, before or after the write (an employee transferred out of a
// department is a change of both departments). None for a change of another type.
func changeLogs(c Change) []string {
	var logs []string
	add := func(l string) {
		for _, have := range logs {
			if have == l {
				return
			}
		}
		logs = append(logs, l)
	}
	for _, e := range [2]repository.Entity{c.New, c.Old} {
		switch v := e.(type) {
		case *saas.Ticket:
			add(TicketChangeScope(v.OrgID, "").Log)
		case *commerce.Order:
			add(OrderChangeScope(v.CustomerID).Log)
			add(logAllOrders)
		case *hr.Employee:
			if v.DepartmentID != "" {
				add(EmployeeChangeScope(v.DepartmentID).Log)
			}
			add(logAllEmployees)
		case *catalog.Product:
			add(InventoryChangeScope(v.ID).Log)
		}
	}
	return logs
}
