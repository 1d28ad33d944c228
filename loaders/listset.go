package loaders

import (
	"time"

	"singletable/repository"
)

// listSet is the list loaders of one request, one per kind of list (see listLoader). The
// fetchers live next to the typed methods that use them, in the domain files.
type listSet struct {
	organizations      *listLoader[organizationsKey, repository.Page[*repository.Organization]]
	users              *listLoader[usersKey, repository.Page[*repository.User]]
	orgWithUsers       *listLoader[withChildrenKey, orgWithUsers]
	tickets            *listLoader[ticketsKey, repository.Page[*repository.Ticket]]
	userWithTickets    *listLoader[withChildrenKey, userWithTickets]
	customers          *listLoader[customersKey, repository.Page[*repository.Customer]]
	orders             *listLoader[ordersKey, repository.Page[*repository.Order]]
	statusOrders       *listLoader[ordersKey, repository.Page[*repository.Order]]
	customerWithOrders *listLoader[withChildrenKey, customerWithOrders]
	orderWithItems     *listLoader[orderKey, orderWithItems]
	ordersByStatus     *listLoader[ordersByStatusKey, repository.Page[*repository.Order]]
	departments        *listLoader[departmentsKey, repository.Page[*repository.Department]]
	employeesBy        *listLoader[employeesByKey, repository.Page[*repository.Employee]]
	locations          *listLoader[locationsKey, repository.Page[*repository.Location]]
	inverse            *listLoader[relListKey, repository.Page[*repository.Employee]]

	all []interface{ clear() }
}

// newListSet builds the list loaders of l. Lists whose elements are complete when their Query
// returns are read at once; the two kinds whose elements need lookups of their own (employees
// named by relation items, items of status-filtered orders) gather a level within wait. In the
// baseline (Options.Baseline) nothing is cached or gathered: each list is read when asked for.
func newListSet(l *Loaders, wait time.Duration) *listSet {
	s := &listSet{}
	level := wait
	if l.baseline {
		level = 0
	}
	s.organizations = addList(s, fetchEach[organizationsKey, repository.Page[*repository.Organization]](l.readOrganizations), 0, l.baseline)
	s.users = addList(s, fetchEach[usersKey, repository.Page[*repository.User]](l.readUsers), 0, l.baseline)
	s.orgWithUsers = addList(s, fetchEach[withChildrenKey, orgWithUsers](l.readOrgWithUsers), 0, l.baseline)
	s.tickets = addList(s, fetchEach[ticketsKey, repository.Page[*repository.Ticket]](l.readTickets), 0, l.baseline)
	s.userWithTickets = addList(s, fetchEach[withChildrenKey, userWithTickets](l.readUserWithTickets), 0, l.baseline)
	s.customers = addList(s, fetchEach[customersKey, repository.Page[*repository.Customer]](l.readCustomers), 0, l.baseline)
	s.orders = addList(s, fetchEach[ordersKey, repository.Page[*repository.Order]](l.readOrders), 0, l.baseline)
	s.statusOrders = addList(s, fetchBatch[ordersKey, repository.Page[*repository.Order]](l.readStatusOrders), level, l.baseline)
	s.customerWithOrders = addList(s, fetchEach[withChildrenKey, customerWithOrders](l.readCustomerWithOrders), 0, l.baseline)
	s.orderWithItems = addList(s, fetchEach[orderKey, orderWithItems](l.readOrderWithItems), 0, l.baseline)
	s.ordersByStatus = addList(s, fetchEach[ordersByStatusKey, repository.Page[*repository.Order]](l.readOrdersByStatus), 0, l.baseline)
	s.departments = addList(s, fetchEach[departmentsKey, repository.Page[*repository.Department]](l.readDepartments), 0, l.baseline)
	s.employeesBy = addList(s, fetchEach[employeesByKey, repository.Page[*repository.Employee]](l.readEmployeesBy), 0, l.baseline)
	s.locations = addList(s, fetchEach[locationsKey, repository.Page[*repository.Location]](l.readLocations), 0, l.baseline)
	s.inverse = addList(s, fetchBatch[relListKey, repository.Page[*repository.Employee]](l.readInverseLists), level, l.baseline)
	return s
}

func addList[K comparable, V any](s *listSet, f fetcher[K, V], wait time.Duration, uncached bool) *listLoader[K, V] {
	ll := newListLoader(f, wait, uncached)
	s.all = append(s.all, ll)
	return ll
}

// clear forgets every cached list.
func (s *listSet) clear() {
	for _, ll := range s.all {
		ll.clear()
	}
}
