package loaders

import (
	"context"
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
	histories          *listLoader[historyKey, repository.Page[*repository.TicketVersion]]
	customers          *listLoader[customersKey, repository.Page[*repository.Customer]]
	orders             *listLoader[ordersKey, repository.Page[*repository.Order]]
	statusOrders       *listLoader[ordersKey, repository.Page[*repository.Order]]
	customerWithOrders *listLoader[withChildrenKey, customerWithOrders]
	orderWithItems     *listLoader[orderWithItemsKey, orderWithItems]
	ordersByStatus     *listLoader[ordersByStatusKey, repository.Page[*repository.Order]]
	departments        *listLoader[departmentsKey, repository.Page[*repository.Department]]
	employeesBy        *listLoader[employeesByKey, repository.Page[*repository.Employee]]
	locations          *listLoader[locationsKey, repository.Page[*repository.Location]]
	inverse            *listLoader[relListKey, repository.Page[*repository.Employee]]
	ticketByID         *listLoader[string, *repository.Ticket]
	products           *listLoader[rootListKey, repository.Page[*repository.Product]]
	warehouses         *listLoader[rootListKey, repository.Page[*repository.Warehouse]]
	inventories        *listLoader[productListKey, repository.Page[*repository.Inventory]]
	productItems       *listLoader[productListKey, repository.Page[*repository.OrderItem]]
	accounts           *listLoader[repListKey, repository.Page[*repository.Customer]]
	repOrders          *listLoader[repListKey, repository.Page[*repository.Order]]
	jobHistories       *listLoader[repListKey, repository.Page[*repository.JobHistory]]

	all []interface{ clear() }
}

// newListSet builds the list loaders of l. Root lists and parents read with their first page are
// read when asked for; the child lists of a level are read together when the level starts them;
// the two kinds whose elements are looked up by key after the Query (employees named by relation
// items, items of status-filtered orders) also gather, within wait, the lists their resolvers ask
// for.
func newListSet(l *Loaders, wait time.Duration) *listSet {
	s := &listSet{}
	s.organizations = addList(s, fetchEach[organizationsKey, repository.Page[*repository.Organization]](l.readOrganizations), 0)
	s.users = addList(s, fetchBatch[usersKey, repository.Page[*repository.User]](l.readUsers), 0)
	s.orgWithUsers = addList(s, fetchEach[withChildrenKey, orgWithUsers](l.readOrgWithUsers), 0)
	s.tickets = addList(s, fetchBatch[ticketsKey, repository.Page[*repository.Ticket]](l.readTickets), 0)
	s.userWithTickets = addList(s, fetchEach[withChildrenKey, userWithTickets](l.readUserWithTickets), 0)
	s.histories = addList(s, fetchBatch[historyKey, repository.Page[*repository.TicketVersion]](l.readHistories), 0)
	s.customers = addList(s, fetchEach[customersKey, repository.Page[*repository.Customer]](l.readCustomers), 0)
	s.orders = addList(s, fetchBatch[ordersKey, repository.Page[*repository.Order]](l.readOrders), 0)
	s.statusOrders = addList(s, fetchBatch[ordersKey, repository.Page[*repository.Order]](l.readStatusOrders), wait)
	s.customerWithOrders = addList(s, fetchEach[withChildrenKey, customerWithOrders](l.readCustomerWithOrders), 0)
	s.orderWithItems = addList(s, fetchEach[orderWithItemsKey, orderWithItems](l.readOrderWithItems), 0)
	s.ordersByStatus = addList(s, fetchEach[ordersByStatusKey, repository.Page[*repository.Order]](l.readOrdersByStatus), 0)
	s.departments = addList(s, fetchEach[departmentsKey, repository.Page[*repository.Department]](l.readDepartments), 0)
	s.employeesBy = addList(s, fetchEach[employeesByKey, repository.Page[*repository.Employee]](l.readEmployeesBy), 0)
	s.locations = addList(s, fetchEach[locationsKey, repository.Page[*repository.Location]](l.readLocations), 0)
	s.inverse = addList(s, fetchBatch[relListKey, repository.Page[*repository.Employee]](l.readInverseLists), wait)
	s.ticketByID = addList(s, fetchEach[string, *repository.Ticket](l.readTicketByID), 0)
	s.products = addList(s, fetchEach[rootListKey, repository.Page[*repository.Product]](l.readProducts), 0)
	s.warehouses = addList(s, fetchEach[rootListKey, repository.Page[*repository.Warehouse]](l.readWarehouses), 0)
	s.inventories = addList(s, fetchBatch[productListKey, repository.Page[*repository.Inventory]](l.readInventories), 0)
	s.productItems = addList(s, fetchBatch[productListKey, repository.Page[*repository.OrderItem]](l.readProductItems), 0)
	s.accounts = addList(s, fetchBatch[repListKey, repository.Page[*repository.Customer]](l.readAccounts), 0)
	s.repOrders = addList(s, fetchBatch[repListKey, repository.Page[*repository.Order]](l.readRepOrders), 0)
	s.jobHistories = addList(s, fetchBatch[repListKey, repository.Page[*repository.JobHistory]](l.readJobHistories), 0)
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

// readLevel reads the lists of keys concurrently (read, one Query each) and then does what their
// elements need (the key's Level). For a whole level, a list whose level is flat is answered as
// soon as its Query is back, its elements' lookups reserved in the level's one batch, sent when
// the last list is back; the others wait for the whole level (ReadAhead: their child lists start
// together, their relations are followed step by step). A list read on its own has its lookups
// join the key loader's window. what names the read in a panic's error.
func readLevel[K any, T repository.Entity](ctx context.Context, l *Loaders, keys []K, whole bool, what string,
	level func(K) Level, read func(context.Context, K) (repository.Page[T], error), answer func(int, repository.Page[T], error)) ([]repository.Page[T], []error) {
	if whole && len(keys) > 1 {
		var end func()
		ctx, end = l.startBatch(ctx, BatchLevel, len(keys))
		defer end()
	}
	batch := l.newKeyBatch()
	defer batch.send(ctx)
	early := make([]bool, len(keys))
	pages := make([]repository.Page[T], len(keys))
	errs := each(len(keys), what, func(i int) (err error) {
		pages[i], err = read(ctx, keys[i])
		if lv := level(keys[i]); err == nil && whole && flat(lv) {
			batch.reserveLevel(ctx, lv, entities(pages[i].Items))
			early[i] = true
			answer(i, pages[i], nil)
		}
		return err
	})
	objects := make([]LevelObjects, 0, len(keys))
	for i, k := range keys {
		switch {
		case errs[i] != nil || len(pages[i].Items) == 0 || early[i]:
		case !whole:
			l.prefetchAhead(ctx, level(k), entities(pages[i].Items))
		default:
			objects = appendLevel(objects, level(k), entities(pages[i].Items))
		}
	}
	l.ReadAhead(ctx, objects...)
	return pages, errs
}

// appendLevel adds objects of level to levels, joining those of the same level.
func appendLevel(levels []LevelObjects, level Level, objects []repository.Entity) []LevelObjects {
	if level == nil {
		return levels
	}
	for i := range levels {
		if levels[i].Level == level {
			levels[i].Objects = append(levels[i].Objects, objects...)
			return levels
		}
	}
	return append(levels, LevelObjects{Level: level, Objects: objects})
}
