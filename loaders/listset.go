package loaders

import (
	"time"

	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// listSet is the list loaders of one request, one per kind of list (see listLoader). The
// fetchers live next to the typed methods that use them, in the domain files.
type listSet struct {
	organizations      *listLoader[listPage, repository.Page[*saas.Organization]]
	users              *listLoader[usersKey, repository.Page[*saas.User]]
	orgWithUsers       *listLoader[withChildrenKey, parentWith[*saas.Organization, *saas.User]]
	tickets            *listLoader[ticketsKey, repository.Page[*saas.Ticket]]
	userWithTickets    *listLoader[withChildrenKey, parentWith[*saas.User, *saas.Ticket]]
	histories          *listLoader[historyKey, repository.Page[*saas.TicketVersion]]
	customers          *listLoader[listPage, repository.Page[*commerce.Customer]]
	orders             *listLoader[ordersKey, repository.Page[*commerce.Order]]
	statusOrders       *listLoader[ordersKey, repository.Page[*commerce.Order]]
	customerWithOrders *listLoader[withChildrenKey, parentWith[*commerce.Customer, *commerce.Order]]
	orderWithItems     *listLoader[withChildrenKey, parentWith[*commerce.Order, *commerce.OrderItem]]
	ordersByStatus     *listLoader[ordersByStatusKey, repository.Page[*commerce.Order]]
	departments        *listLoader[listPage, repository.Page[*hr.Department]]
	employeesBy        *listLoader[employeesByKey, repository.Page[*hr.Employee]]
	locations          *listLoader[locationsKey, repository.Page[*hr.Location]]
	inverse            *listLoader[relListKey, repository.Page[*hr.Employee]]
	ticketByID         *listLoader[string, *saas.Ticket]
	products           *listLoader[listPage, repository.Page[*catalog.Product]]
	warehouses         *listLoader[listPage, repository.Page[*catalog.Warehouse]]
	inventories        *listLoader[productListKey, repository.Page[*catalog.Inventory]]
	productWithStock   *listLoader[withChildrenKey, parentWith[*catalog.Product, *catalog.Inventory]]
	productItems       *listLoader[productListKey, repository.Page[*commerce.OrderItem]]
	accounts           *listLoader[repListKey, repository.Page[*commerce.Customer]]
	repOrders          *listLoader[repListKey, repository.Page[*commerce.Order]]
	jobHistories       *listLoader[repListKey, repository.Page[*hr.JobHistory]]

	all []interface{ clear() }
}

// newListSet builds the list loaders of l. Root lists and parents read with their first page are
// read when asked for; the child lists of a level are read together when the level starts them;
// the two kinds whose elements are looked up by key after the Query (employees named by relation
// items, items of status-filtered orders) also gather, within wait, the lists their resolvers ask
// for. Each kind's one read is in its domain file; what its elements need is listreads.go's.
func newListSet(l *Loaders, wait time.Duration) *listSet {
	s := &listSet{}
	s.organizations = addList(s, rootList(l, l.repo.ListOrganizations), 0)
	s.users = addList(s, levelList(l, "user list query", primed(l, l.readUsers)), 0)
	s.orgWithUsers = addList(s, withChildren(l, l.readOrgWithUsers), 0)
	s.tickets = addList(s, levelList(l, "ticket list query", primed(l, l.readTickets)), 0)
	s.userWithTickets = addList(s, withChildren(l, l.readUserWithTickets), 0)
	s.histories = addList(s, levelList(l, "ticket history query", l.readHistories), 0)
	s.customers = addList(s, rootList(l, l.repo.ListCustomers), 0)
	s.orders = addList(s, levelList(l, "order list query", primed(l, l.readOrders)), 0)
	s.statusOrders = addList(s, levelList(l, "order list query", primed(l, l.readStatusOrders)), wait)
	s.customerWithOrders = addList(s, withChildren(l, l.readCustomerWithOrders), 0)
	s.orderWithItems = addList(s, withChildren(l, l.readOrderWithItems), 0)
	s.ordersByStatus = addList(s, rootRead(l, l.readOrdersByStatus), 0)
	s.departments = addList(s, rootList(l, l.repo.ListDepartments), 0)
	s.employeesBy = addList(s, rootRead(l, l.readEmployeesBy), 0)
	s.locations = addList(s, rootRead(l, l.readLocations), 0)
	s.inverse = addList(s, fetchBatch[relListKey, repository.Page[*hr.Employee]](l.readInverseLists), wait)
	s.ticketByID = addList(s, fetchEach[string, *saas.Ticket](l.readTicketByID), 0)
	s.products = addList(s, rootList(l, l.repo.ListProducts), 0)
	s.warehouses = addList(s, rootList(l, l.repo.ListWarehouses), 0)
	s.inventories = addList(s, levelList(l, "inventory query", l.readInventories), 0)
	s.productWithStock = addList(s, withChildren(l, l.readProductWithInventory), 0)
	s.productItems = addList(s, levelList(l, "product order items query", primed(l, l.readProductItems)), 0)
	s.accounts = addList(s, levelList(l, "accounts query", primed(l, l.readAccounts)), 0)
	s.repOrders = addList(s, levelList(l, "rep orders query", primed(l, l.readRepOrders)), 0)
	s.jobHistories = addList(s, levelList(l, "job history query", l.readJobHistories), 0)
	return s
}

func addList[K comparable, V any](s *listSet, f fetcher[K, V], wait time.Duration) *listLoader[K, V] {
	ll := newListLoader(f, wait)
	s.all = append(s.all, ll)
	return ll
}

// clear forgets every cached list.
func (s *listSet) clear() {
	for _, ll := range s.all {
		ll.clear()
	}
}
