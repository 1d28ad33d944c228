package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"

	"singletable/repository/benchfloor"
)

// op is one operation of the suite: a GraphQL document, its variables for a dataset and a
// breadth, and its minimal plan computed from the same dataset. Deep operations also have a
// direct floor: the same read written by hand against the SDK (repository/benchfloor).
type op struct {
	id    string // "AP1" … "AP20", "AP30", or "saas", "hr", … for a deep tree
	name  string
	deep  bool
	query string
	vars  func(d *dataset, breadth int) map[string]any
	plan  func(d *dataset, breadth int, shards int) minimum
	floor func(ctx context.Context, fl *benchfloor.Client, d *dataset, breadth int) (benchfloor.Result, error)
	// uncounted: the operation's connections have no totalCount (a product's order lines and a
	// warehouse's staff keep no counter), so the counted-tree target leaves it out.
	uncounted bool
}

func one(key string) func(*dataset, int, int) minimum {
	return func(*dataset, int, int) minimum { return planMinimum(level{keys: []string{key}}) }
}

func queries(n int) func(*dataset, int, int) minimum {
	return func(*dataset, int, int) minimum { return planMinimum(level{queries: n}) }
}

func idVar(id func(d *dataset) string) func(*dataset, int) map[string]any {
	return func(d *dataset, _ int) map[string]any { return map[string]any{"id": id(d)} }
}

// singleOps has one operation per access pattern of AP1–AP20 and AP30, each asked of the first
// parent of the dataset (or of the whole dataset for lists).
var singleOps = []op{
	{id: "AP1", name: "organization by id", query: `query($id: ID!) { organization(id: $id) { name } }`,
		vars: idVar(func(d *dataset) string { return orgGID(d.orgs[0]) }), plan: one("org")},
	{id: "AP2", name: "organization and its users (one Query)", query: `query($id: ID!) { organization(id: $id) { name users(first: 4) { edges { node { name email } } } } }`,
		vars: idVar(func(d *dataset) string { return orgGID(d.orgs[0]) }), plan: queries(1)},
	{id: "AP3", name: "users of organizations, paged", query: `{ organizations(first: 3) { edges { node { name users(first: 2) { edges { node { name } } pageInfo { hasNextPage endCursor } } } } } }`,
		vars: func(*dataset, int) map[string]any { return nil },
		plan: func(d *dataset, _, _ int) minimum {
			return planMinimum(level{round: 1, queries: 1}, level{round: 2, queries: min(3, len(d.orgs))})
		}},
	{id: "AP4", name: "user by id", query: `query($id: ID!) { node(id: $id) { ... on User { name email } } }`,
		vars: idVar(func(d *dataset) string { return userGID(d.users[d.orgs[0].ID][0]) }), plan: one("user")},
	{id: "AP5", name: "a user's tickets newest first (with the user, one Query)", query: `query($id: ID!) { node(id: $id) { ... on User { name tickets(first: 3) { edges { node { title createdAt } } } } } }`,
		vars: idVar(func(d *dataset) string { return userGID(d.users[d.orgs[0].ID][0]) }), plan: queries(1)},
	{id: "AP6", name: "ticket by id", query: `query($id: ID!) { node(id: $id) { ... on Ticket { title status } } }`,
		vars: idVar(func(d *dataset) string { return ticketGID(d.tickets[d.users[d.orgs[0].ID][0].ID][0]) }), plan: one("ticket")},
	{id: "AP7", name: "list organizations, departments, customers", query: `{ organizations(first: 10) { edges { node { name } } } departments(first: 10) { edges { node { name } } } customers(first: 10) { edges { node { name } } } }`,
		vars: func(*dataset, int) map[string]any { return nil }, plan: queries(3)},
	{id: "AP8", name: "department by id", query: `query($id: ID!) { department(id: $id) { name } }`,
		vars: idVar(func(d *dataset) string { return deptGID(d.depts[0]) }), plan: one("dept")},
	{id: "AP9", name: "employees of a department", query: `query($id: ID!) { department(id: $id) { name employees(first: 5) { edges { node { name } } } } }`,
		vars: idVar(func(d *dataset) string { return deptGID(d.depts[0]) }),
		plan: func(d *dataset, _, _ int) minimum {
			var emps []string
			for _, e := range d.employees[d.depts[0].ID] {
				emps = append(emps, k("emp", e.ID))
			}
			return planMinimum(level{round: 1, keys: []string{k("dept", d.depts[0].ID)}, queries: 1}, level{round: 2, keys: emps})
		}},
	{id: "AP10", name: "an employee's department, manager, mentor", query: `query($id: ID!) { employee(id: $id) { name department { name } manager { name } mentor { name } } }`,
		vars: idVar(func(d *dataset) string { return empGID(d.employees[d.depts[0].ID][1]) }),
		plan: func(d *dataset, _, _ int) minimum {
			e := d.employees[d.depts[0].ID][1]
			rels := []string{k("rel-dept", e.ID)}
			targets := []string{k("dept", d.deptOf[e.ID])}
			if m, ok := d.manager[e.ID]; ok {
				rels, targets = append(rels, k("rel-manager", e.ID)), append(targets, k("emp", m))
			}
			if m, ok := d.mentor[e.ID]; ok {
				rels, targets = append(rels, k("rel-mentor", e.ID)), append(targets, k("emp", m))
			}
			return planMinimum(level{round: 1, keys: []string{k("emp", e.ID)}}, level{round: 2, keys: rels}, level{round: 3, keys: targets})
		}},
	{id: "AP11", name: "direct reports of a manager", query: `query($id: ID!) { employee(id: $id) { name directReports(first: 10) { edges { node { name } } } } }`,
		vars: idVar(func(d *dataset) string { return empGID(d.heads[0]) }),
		plan: func(d *dataset, _, _ int) minimum {
			var reports []string
			for e, m := range d.manager {
				if m == d.heads[0].ID {
					reports = append(reports, k("emp", e))
				}
			}
			return planMinimum(level{round: 1, keys: []string{k("emp", d.heads[0].ID)}, queries: 1}, level{round: 2, keys: reports})
		}},
	{id: "AP12", name: "employees by job title", query: `{ employeesByJobTitle(jobTitle: "Engineer", first: 10) { edges { node { name jobTitle } } } }`,
		vars: func(*dataset, int) map[string]any { return nil }, plan: queries(1)},
	{id: "AP13", name: "employees hired since a date", query: `{ employeesHiredSince(since: "2020-01-01T00:00:00Z", first: 10) { edges { node { name hiredAt } } } }`,
		vars: func(*dataset, int) map[string]any { return nil }, plan: queries(1)},
	{id: "AP30", name: "employees by name", query: `{ employeesByName(name: "Head 0", first: 10) { edges { node { name jobTitle } } } }`,
		vars: func(*dataset, int) map[string]any { return nil }, plan: queries(1)},
	{id: "AP14", name: "locations by country and state", query: `{ locations(country: "United States", state: "California") { edges { node { city postalCode address } } } }`,
		vars: func(*dataset, int) map[string]any { return nil }, plan: queries(1)},
	{id: "AP15", name: "customer with mailing addresses", query: `query($id: ID!) { customer(id: $id) { name mailingAddresses { line1 city } } }`,
		vars: idVar(func(d *dataset) string { return custGID(d.customers[0]) }), plan: one("customer")},
	{id: "AP16", name: "a customer's orders newest first (with the customer, one Query)", query: `query($id: ID!) { customer(id: $id) { name orders(first: 3) { edges { node { totalCents placedAt } } } } }`,
		vars: idVar(func(d *dataset) string { return custGID(d.customers[0]) }), plan: queries(1)},
	{id: "AP17", name: "an order with its items", query: `query($id: ID!) { order(id: $id) { totalCents items { sku quantity } } }`,
		vars: idVar(func(d *dataset) string { return orderGID(d.orders[d.customers[0].ID][0]) }),
		plan: func(d *dataset, _, _ int) minimum {
			// The order's own collection holds the order and its items: one Query (AP17).
			return planMinimum(level{queries: 1})
		}},
	{id: "AP18", name: "order by id", query: `query($id: ID!) { order(id: $id) { status totalCents } }`,
		vars: idVar(func(d *dataset) string { return orderGID(d.orders[d.customers[0].ID][0]) }), plan: one("order")},
	{id: "AP19", name: "an employee's department name (duplicated, no second read)", query: `query($id: ID!) { employee(id: $id) { name departmentName } }`,
		vars: idVar(func(d *dataset) string { return empGID(d.employees[d.depts[0].ID][0]) }), plan: one("emp")},
	{id: "AP20", name: "orders by status across customers (sharded GSI)", query: `{ ordersByStatus(status: OPEN, first: 10) { edges { node { totalCents placedAt } } } }`,
		vars: func(*dataset, int) map[string]any { return nil },
		plan: func(_ *dataset, _, shards int) minimum { return planMinimum(level{queries: shards}) }},
}

// idsOf are the IDs (id: global IDs, or the table's) of the first n of xs: the IDs a deep
// operation starts from.
func idsOf[T any](xs []T, n int, id func(T) string) []string {
	out := make([]string, 0, n)
	for _, x := range xs[:n] {
		out = append(out, id(x))
	}
	return out
}

// The table's IDs of a deep operation's parents, for its floor.
func organizationID(o *saas.Organization) string { return o.ID }
func departmentID(x *hr.Department) string       { return x.ID }
func customerID(c *commerce.Customer) string     { return c.ID }
func productID(p *catalog.Product) string        { return p.ID }
func warehouseID(w *catalog.Warehouse) string    { return w.ID }

// deepOps are the deep trees, one per domain, started from breadth top-level parents.
var deepOps = []op{
	{id: "saas", name: "organizations → users → tickets → reporter", deep: true,
		query: `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Organization { name users(first: 4) { edges { node { name tickets(first: 5) { edges { node { title reporter { name } } } } } } } } } }`,
		vars: func(d *dataset, b int) map[string]any {
			return map[string]any{"ids": idsOf(d.orgs, b, orgGID)}
		},
		plan: func(d *dataset, b, _ int) minimum {
			// Each organization with its users is one Query of its collection (AP2); each user's
			// tickets one Query (AP5); the reporters are users already read.
			var read, reporters []string
			users := 0
			for _, o := range d.orgs[:b] {
				for _, u := range d.users[o.ID][:min(4, len(d.users[o.ID]))] {
					users++
					read = append(read, k("user", u.ID))
					for _, t := range d.tickets[u.ID][:min(5, len(d.tickets[u.ID]))] {
						reporters = append(reporters, k("user", t.ReporterID))
					}
				}
			}
			return planMinimum(level{round: 1, queries: b},
				level{round: 2, queries: users}, primed(read), level{round: 3, keys: reporters})
		},
		floor: func(ctx context.Context, fl *benchfloor.Client, d *dataset, b int) (benchfloor.Result, error) {
			return benchfloor.SaaSTree(ctx, fl, idsOf(d.orgs, b, organizationID), 4, 5)
		}},
	{id: "hr", name: "departments → employees → manager → department", deep: true,
		query: `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Department { name employees(first: 5) { edges { node { name manager { name department { name } } } } } } } }`,
		vars: func(d *dataset, b int) map[string]any {
			return map[string]any{"ids": idsOf(d.depts, b, deptGID)}
		},
		plan: func(d *dataset, b, _ int) minimum {
			// 1: the departments by key, and each department's membership items (one Query of
			// the inverted GSI1 each, AP9), which carry every employee's DEPARTMENT relation.
			// 2: the employees and their MANAGER relation items (AP10). 3: the managers and their
			// DEPARTMENT relation items. 4: the managers' departments.
			var depts, relDepts, emps, managers, mgrDepts []string
			for _, dept := range d.depts[:b] {
				depts = append(depts, k("dept", dept.ID))
				for _, e := range d.employees[dept.ID][:min(5, len(d.employees[dept.ID]))] {
					relDepts = append(relDepts, k("rel-dept", e.ID))
					emps = append(emps, k("emp", e.ID), k("rel-manager", e.ID))
					if m, ok := d.manager[e.ID]; ok {
						managers = append(managers, k("emp", m), k("rel-dept", m))
						mgrDepts = append(mgrDepts, k("dept", d.deptOf[m]))
					}
				}
			}
			return planMinimum(level{round: 1, keys: depts, queries: b}, primed(relDepts),
				level{round: 2, keys: emps}, level{round: 3, keys: managers}, level{round: 4, keys: mgrDepts})
		},
		floor: func(ctx context.Context, fl *benchfloor.Client, d *dataset, b int) (benchfloor.Result, error) {
			return benchfloor.HRTree(ctx, fl, idsOf(d.depts, b, departmentID), 5)
		}},
	{id: "commerce", name: "customers → orders → items + customer", deep: true,
		query: `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Customer { name orders(first: 3) { edges { node { totalCents items { sku quantity } customer { name } } } } } } }`,
		vars: func(d *dataset, b int) map[string]any {
			return map[string]any{"ids": idsOf(d.customers, b, custGID)}
		},
		plan: func(d *dataset, b, _ int) minimum {
			// One Query per customer's collection: the customer, its orders and their items
			// (AP15–AP17); every order's customer is that customer.
			return planMinimum(level{round: 1, queries: b})
		},
		floor: func(ctx context.Context, fl *benchfloor.Client, d *dataset, b int) (benchfloor.Result, error) {
			return benchfloor.CommerceTree(ctx, fl, idsOf(d.customers, b, customerID), 3)
		}},
	{id: "catalog", name: "products → orderItems → order → customer", deep: true, uncounted: true,
		query: `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Product { name orderItems(first: 3) { edges { node { quantity order { totalCents customer { name } } } } } } } }`,
		vars: func(d *dataset, b int) map[string]any {
			return map[string]any{"ids": idsOf(d.products, b, productGID)}
		},
		plan: func(d *dataset, b, _ int) minimum {
			// 1: the products by key and, at the same time, each product's order lines (one Query
			// of its GSI1 partition each, AP25, newest first). 2: the lines' orders (AP18).
			// 3: the orders' customers, each buyer once however many lines it placed.
			var products, orders, customers []string
			for _, p := range d.products[:b] {
				products = append(products, k("product", p.ID))
				for _, it := range d.productLines[p.ID][:min(3, len(d.productLines[p.ID]))] {
					orders = append(orders, k("order", it.OrderID))
					customers = append(customers, k("customer", it.CustomerID))
				}
			}
			return planMinimum(level{round: 1, keys: products, queries: b}, level{round: 2, keys: orders}, level{round: 3, keys: customers})
		},
		floor: func(ctx context.Context, fl *benchfloor.Client, d *dataset, b int) (benchfloor.Result, error) {
			return benchfloor.CatalogTree(ctx, fl, idsOf(d.products, b, productID), 3)
		}},
	{id: "staff", name: "warehouses → employees → department", deep: true, uncounted: true,
		query: `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Warehouse { name employees(first: 5) { edges { node { name department { name } } } } } } }`,
		vars: func(d *dataset, b int) map[string]any {
			return map[string]any{"ids": idsOf(d.staffed, b, warehouseGID)}
		},
		plan: func(d *dataset, b, _ int) minimum {
			// 1: the warehouses by key and, at the same time, each warehouse's staff relations
			// (one Query of its inverted GSI1 partition each, AP31). 2: the employees the
			// relations name. 3: their departments, each once however many employees share it.
			var whs, emps, depts []string
			for _, w := range d.staffed[:b] {
				whs = append(whs, k("warehouse", w.ID))
				staff := slices.SortedFunc(slices.Values(d.staff[w.ID]), func(a, b *hr.Employee) int { return strings.Compare(a.ID, b.ID) })
				for _, e := range staff[:min(5, len(staff))] {
					emps = append(emps, k("employee", e.ID))
					depts = append(depts, k("department", e.DepartmentID))
				}
			}
			return planMinimum(level{round: 1, keys: whs, queries: b}, level{round: 2, keys: emps}, level{round: 3, keys: depts})
		},
		floor: func(ctx context.Context, fl *benchfloor.Client, d *dataset, b int) (benchfloor.Result, error) {
			return benchfloor.StaffTree(ctx, fl, idsOf(d.staffed, b, warehouseID), 5)
		}},
}

// primed marks keys read by an earlier Query: they cost nothing, and later lookups of the same
// keys are free.
func primed(keys []string) level { return level{keys: keys, primed: true} }

func (o op) String() string {
	if o.deep {
		return fmt.Sprintf("deep %s (%s)", o.id, o.name)
	}
	return fmt.Sprintf("%s %s", o.id, o.name)
}
