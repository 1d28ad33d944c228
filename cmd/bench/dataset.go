package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"singletable/graph/model"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
	"singletable/repository/store"
)

// Fan-out of the dataset below each top-level parent. It is fixed so that breadth (how many
// parents a query starts from) is the only thing that changes between the rows of the report.
const (
	usersPerOrg      = 4 // SaaS: organization → 4 users
	ticketsPerUser   = 5 // → 5 tickets each
	employeesPerDept = 5 // HR: department → 5 employees, each managed by the department's head
	ordersPerCust    = 3 // Commerce: customer → 3 orders
	itemsPerOrder    = 2 // → 2 items each
	linesPerProduct  = 3 // Catalog: product → 3 order lines, each of its own order by a buyer
	warehouses       = 2 // the products' stock alternates between them
)

// dataset is what seed wrote, in the order the API lists it, so that the benchmark can compute
// each operation's minimum calls from the data itself.
type dataset struct {
	breadth  int
	location *hr.Location
	orgs     []*saas.Organization
	users    map[string][]*saas.User   // by organization id, in id order
	tickets  map[string][]*saas.Ticket // by user id, newest first

	depts     []*hr.Department
	board     *hr.Department            // the department of the heads, never queried from the top
	heads     []*hr.Employee            // heads[i] manages every employee of depts[i]
	employees map[string][]*hr.Employee // by department id, in id order
	manager   map[string]string         // employee id → manager id
	mentor    map[string]string         // employee id → mentor id
	deptOf    map[string]string         // employee id → department id

	customers []*commerce.Customer
	orders    map[string][]*commerce.Order // by customer id, newest first
	items     map[string][]*commerce.OrderItem

	products     []*catalog.Product
	stockedIn    []*catalog.Warehouse             // stockedIn[i] holds products[i]'s stock
	buyers       []*commerce.Customer             // the customers of the catalog's orders
	productLines map[string][]*commerce.OrderItem // by product id, newest first

	staffed []*catalog.Warehouse      // the staff tree's warehouses, one per department
	staff   map[string][]*hr.Employee // by warehouse id, as assigned

	mu sync.Mutex // guards the maps while seeding
}

// seed writes a dataset of breadth top-level parents per domain. Writes run a few at a time: the
// data is the same whatever the order, and seeding at breadth 50 would otherwise dominate a
// quick run.
func seed(ctx context.Context, repo *store.Store, breadth int) (*dataset, error) {
	d := &dataset{
		breadth: breadth,
		users:   map[string][]*saas.User{}, tickets: map[string][]*saas.Ticket{},
		employees: map[string][]*hr.Employee{}, manager: map[string]string{},
		mentor: map[string]string{}, deptOf: map[string]string{},
		orders: map[string][]*commerce.Order{}, items: map[string][]*commerce.OrderItem{},
		productLines: map[string][]*commerce.OrderItem{}, staff: map[string][]*hr.Employee{},
	}
	for _, domain := range []func(context.Context, *store.Store) error{d.seedSaaS, d.seedHR, d.seedCommerce, d.seedCatalog, d.seedStaff} {
		if err := domain(ctx, repo); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// par runs fn(0) … fn(n-1), eight at a time, and returns the first error.
func par(n int, fn func(i int) error) error {
	sem := make(chan struct{}, 8)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = fn(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// seedSaaS writes the organizations, their users and tickets.
func (d *dataset) seedSaaS(ctx context.Context, repo *store.Store) error {
	d.orgs = make([]*saas.Organization, d.breadth)
	if err := par(d.breadth, func(i int) error {
		org, err := repo.CreateOrganization(ctx, fmt.Sprintf("Org %03d", i))
		if err != nil {
			return err
		}
		d.orgs[i] = org
		var users []*saas.User
		for u := range usersPerOrg {
			user, err := repo.CreateUser(ctx, org.ID, fmt.Sprintf("User %d-%d", i, u), fmt.Sprintf("u%d@org%d.example", u, i))
			if err != nil {
				return err
			}
			users = append(users, user)
			var tickets []*saas.Ticket
			for t := range ticketsPerUser {
				tk, err := repo.CreateTicket(ctx, org.ID, user.ID, fmt.Sprintf("Ticket %d", t), "It does not work.")
				if err != nil {
					return err
				}
				tickets = append([]*saas.Ticket{tk}, tickets...)
			}
			d.mu.Lock()
			d.tickets[user.ID] = tickets
			d.mu.Unlock()
		}
		d.mu.Lock()
		d.users[org.ID] = users
		d.mu.Unlock()
		return nil
	}); err != nil {
		return fmt.Errorf("seed SaaS: %w", err)
	}
	return nil

}

// seedHR writes the location, the departments, their heads and employees.
func (d *dataset) seedHR(ctx context.Context, repo *store.Store) error {
	// HR: the heads live in a department of their own, so that a manager and the manager's
	// department are reads of their own, not items the employees' pages already hold.
	loc, err := repo.CreateLocation(ctx, hr.LocationInput{Country: "United States", State: "California", City: "San Jose", PostalCode: "95113", Address: "1 Market St"})
	if err != nil {
		return fmt.Errorf("seed HR: %w", err)
	}
	d.location = loc
	if d.board, err = repo.CreateDepartment(ctx, "Board", loc.Ref()); err != nil {
		return fmt.Errorf("seed HR: %w", err)
	}
	d.depts = make([]*hr.Department, d.breadth)
	d.heads = make([]*hr.Employee, d.breadth)
	hiredAt := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := par(d.breadth, func(i int) error {
		dept, err := repo.CreateDepartment(ctx, fmt.Sprintf("Dept %03d", i), loc.Ref())
		if err != nil {
			return err
		}
		d.depts[i] = dept
		at := hiredAt.Add(time.Duration(i) * time.Hour)
		head, _, err := repo.HireEmployee(ctx, hr.HireInput{DepartmentID: d.board.ID, Name: fmt.Sprintf("Head %d", i), Email: fmt.Sprintf("head%d@corp.example", i), JobTitle: "Director", HiredAt: &at})
		if err != nil {
			return err
		}
		d.heads[i] = head
		var emps []*hr.Employee
		for e := range employeesPerDept {
			in := hr.HireInput{DepartmentID: dept.ID, Name: fmt.Sprintf("Employee %d-%d", i, e), Email: fmt.Sprintf("e%d.%d@corp.example", i, e), JobTitle: "Engineer", HiredAt: &at, ManagerID: &head.ID}
			if e > 0 {
				in.MentorID = &emps[0].ID
			}
			emp, _, err := repo.HireEmployee(ctx, in)
			if err != nil {
				return err
			}
			emps = append(emps, emp)
			d.mu.Lock()
			d.manager[emp.ID] = head.ID
			d.deptOf[emp.ID] = dept.ID
			if in.MentorID != nil {
				d.mentor[emp.ID] = *in.MentorID
			}
			d.mu.Unlock()
		}
		d.mu.Lock()
		d.deptOf[head.ID] = d.board.ID
		d.employees[dept.ID] = emps
		d.mu.Unlock()
		return nil
	}); err != nil {
		return fmt.Errorf("seed HR: %w", err)
	}
	return nil
}

// seedCommerce writes the customers, their orders and items.
func (d *dataset) seedCommerce(ctx context.Context, repo *store.Store) error {
	d.customers = make([]*commerce.Customer, d.breadth)
	if err := par(d.breadth, func(i int) error {
		addr := []commerce.MailingAddress{{Label: "home", Line1: fmt.Sprintf("%d Main St", i), City: "Springfield", Country: "US"}}
		c, err := repo.CreateCustomer(ctx, fmt.Sprintf("Customer %03d", i), fmt.Sprintf("c%d@shop.example", i), addr)
		if err != nil {
			return err
		}
		d.customers[i] = c
		var orders []*commerce.Order
		for o := range ordersPerCust {
			lines := make([]commerce.OrderLine, itemsPerOrder)
			for l := range lines {
				lines[l] = commerce.OrderLine{SKU: fmt.Sprintf("SKU-%d", l), ProductName: "Widget", Quantity: l + 1, UnitPriceCents: int64(100 * (l + 1))}
			}
			order, items, err := repo.PlaceOrder(ctx, c.ID, lines, fmt.Sprintf("seed-%d-%d", i, o))
			if err != nil {
				return err
			}
			orders = append([]*commerce.Order{order}, orders...)
			d.mu.Lock()
			d.items[order.ID] = items
			d.mu.Unlock()
		}
		d.mu.Lock()
		d.orders[c.ID] = orders
		d.mu.Unlock()
		return nil
	}); err != nil {
		return fmt.Errorf("seed Commerce: %w", err)
	}
	return nil
}

// seedCatalog writes the warehouses, the products with their stock, and the buyers: customers
// of their own, so that the commerce tree's customers keep their fixed fan-out. Then the order
// lines (placeCatalogOrders).
func (d *dataset) seedCatalog(ctx context.Context, repo *store.Store) error {
	var whs []*catalog.Warehouse
	for w := range warehouses {
		wh, err := repo.CreateWarehouse(ctx, fmt.Sprintf("Warehouse %d", w), "us-east-1")
		if err != nil {
			return fmt.Errorf("seed Catalog: %w", err)
		}
		whs = append(whs, wh)
	}
	d.products = make([]*catalog.Product, d.breadth)
	d.stockedIn = make([]*catalog.Warehouse, d.breadth)
	d.buyers = make([]*commerce.Customer, d.breadth)
	if err := par(d.breadth, func(i int) error {
		p, err := repo.CreateProduct(ctx, fmt.Sprintf("Product %03d", i), fmt.Sprintf("BENCH-%03d", i))
		if err != nil {
			return err
		}
		d.products[i], d.stockedIn[i] = p, whs[i%warehouses]
		if _, err := repo.SetInventory(ctx, p.ID, d.stockedIn[i].ID, 1000); err != nil {
			return err
		}
		addr := []commerce.MailingAddress{{Label: "home", Line1: fmt.Sprintf("%d Market St", i), City: "Springfield", Country: "US"}}
		d.buyers[i], err = repo.CreateCustomer(ctx, fmt.Sprintf("Buyer %03d", i), fmt.Sprintf("b%d@shop.example", i), addr)
		return err
	}); err != nil {
		return fmt.Errorf("seed Catalog: %w", err)
	}
	return d.placeCatalogOrders(ctx, repo)
}

// placeCatalogOrders places the order lines naming the products: product i's j-th line is an
// order of its own by buyer (i+j) mod breadth, so that neighbouring products share buyers and
// the tree's customer level has keys to deduplicate. One round per line: within a round every
// product and every buyer appears once, so no two concurrent orders take from the same stock or
// count on the same customer.
func (d *dataset) placeCatalogOrders(ctx context.Context, repo *store.Store) error {
	for j := range linesPerProduct {
		if err := par(d.breadth, func(i int) error {
			p := d.products[i]
			line := commerce.OrderLine{SKU: p.SKU, ProductName: p.Name, Quantity: 1, UnitPriceCents: 500, ProductID: p.ID, WarehouseID: d.stockedIn[i].ID}
			_, items, err := repo.PlaceOrder(ctx, d.buyers[(i+j)%d.breadth].ID, []commerce.OrderLine{line}, fmt.Sprintf("catalog-%d-%d", i, j))
			if err != nil {
				return err
			}
			d.mu.Lock()
			d.productLines[p.ID] = append([]*commerce.OrderItem{items[0]}, d.productLines[p.ID]...)
			d.mu.Unlock()
			return nil
		}); err != nil {
			return fmt.Errorf("seed Catalog: %w", err)
		}
	}
	return nil
}

// seedStaff writes one warehouse per department and assigns it staff: warehouse i's e-th
// employee is the e-th employee of department (i+e) mod breadth, so that a warehouse's staff
// spans departments and neighbouring warehouses share them (the tree's department level has keys
// to deduplicate). One round per e: within a round every warehouse and every employee appears
// once, so no two concurrent assignments count on the same warehouse.
func (d *dataset) seedStaff(ctx context.Context, repo *store.Store) error {
	d.staffed = make([]*catalog.Warehouse, d.breadth)
	if err := par(d.breadth, func(i int) error {
		wh, err := repo.CreateWarehouse(ctx, fmt.Sprintf("Depot %03d", i), "us-east-1")
		d.staffed[i] = wh
		return err
	}); err != nil {
		return fmt.Errorf("seed staff: %w", err)
	}
	for e := range employeesPerDept {
		if err := par(d.breadth, func(i int) error {
			emp := d.employees[d.depts[(i+e)%d.breadth].ID][e]
			if _, _, err := repo.AssignWarehouse(ctx, emp.ID, d.staffed[i].ID); err != nil {
				return err
			}
			d.mu.Lock()
			d.staff[d.staffed[i].ID] = append(d.staff[d.staffed[i].ID], emp)
			d.mu.Unlock()
			return nil
		}); err != nil {
			return fmt.Errorf("seed staff: %w", err)
		}
	}
	return nil
}

// Global IDs, as the API spells them.
func orgGID(o *saas.Organization) string   { return model.Organizations.IDOf(o.ID) }
func userGID(u *saas.User) string          { return model.Users.IDOf(u.OrgID, u.ID) }
func ticketGID(t *saas.Ticket) string      { return model.Tickets.ID(t) }
func deptGID(d *hr.Department) string      { return model.Departments.IDOf(d.ID) }
func empGID(e *hr.Employee) string         { return model.Employees.IDOf(e.ID) }
func custGID(c *commerce.Customer) string  { return model.Customers.IDOf(c.ID) }
func productGID(p *catalog.Product) string { return model.Products.IDOf(p.ID) }
func warehouseGID(w *catalog.Warehouse) string {
	return model.Warehouses.IDOf(w.ID)
}
func orderGID(o *commerce.Order) string {
	return model.Orders.IDOf(o.CustomerID, o.ID)
}
