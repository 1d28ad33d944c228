package planner

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

const (
	org1  = "01J00000000000000000000001"
	org2  = "01J00000000000000000000002"
	user1 = "01J00000000000000000000003"
	user2 = "01J00000000000000000000004"
)

// The combined read of an object asked for by ID: the first occurrence of its list in the plain
// form (first page, a valid page size, no filter), with that page size.
func TestCombinedReadOfALookup(t *testing.T) {
	cases := []struct {
		name, query string
		vars        map[string]any
		typ         string
		alias       string
		first       int
	}{
		{"users with first", `{ node(id: "x") { ... on Organization { users(first: 5) { edges { node { id } } } } } }`, nil, "Organization", "users", 5},
		{"users default page", `{ organization(id: "x") { users { edges { node { name } } } } }`, nil, "Organization", "users", repository.DefaultPageSize},
		{"users after a cursor", `{ organization(id: "x") { users(after: "c") { edges { node { name } } } } }`, nil, "Organization", "", 0},
		{"users page too large", `{ organization(id: "x") { users(first: 500) { edges { cursor } } } }`, nil, "Organization", "", 0},
		{"users from a variable", `query($n: Int) { organization(id: "x") { users(first: $n) { edges { cursor } } } }`, map[string]any{"n": int64(7)}, "Organization", "users", 7},
		{"users skipped", `query($s: Boolean!) { organization(id: "x") { users @skip(if: $s) { edges { cursor } } } }`, map[string]any{"s": true}, "Organization", "", 0},
		{"no users asked", `{ organization(id: "x") { name } }`, nil, "Organization", "", 0},
		{"tickets through a fragment", `{ nodes(ids: ["x"]) { ...U } } fragment U on User { tickets(first: 3) { edges { node { title } } } }`, nil, "User", "tickets", 3},
		{"tickets with a status", `{ user(id: "x") { tickets(first: 3, status: OPEN) { edges { cursor } } } }`, nil, "User", "", 0},
		{"tickets created after", `{ user(id: "x") { tickets(createdAfter: "2024-01-01T00:00:00Z") { edges { cursor } } } }`, nil, "User", "", 0},
		{"second alias in the form", `{ user(id: "x") { a: tickets(status: OPEN) { edges { cursor } } b: tickets(first: 4) { edges { cursor } } } }`, nil, "User", "b", 4},
		{"orders", `{ customer(id: "x") { orders(first: 2) { edges { node { items { sku } } } } } }`, nil, "Customer", "orders", 2},
		{"orders placed before", `{ customer(id: "x") { orders(placedBefore: "2024-01-01T00:00:00Z") { edges { cursor } } } }`, nil, "Customer", "", 0},
		{"orders with a status", `{ customer(id: "x") { orders(status: OPEN) { edges { cursor } } } }`, nil, "Customer", "", 0},
		{"order items", `{ order(id: "x") { items { sku } } }`, nil, "Order", "items", 0},
		{"order without items", `{ order(id: "x") { status } }`, nil, "Order", "", 0},
		{"a product's stock", `{ product(id: "x") { name inventory { quantity warehouse { name } } } }`, nil, "Product", "inventory", catalog.MaxWarehousesPerProduct},
		{"a product's stock by node, aliased", `{ node(id: "x") { ... on Product { stock: inventory { quantity } } } }`, nil, "Product", "stock", catalog.MaxWarehousesPerProduct},
		{"a product without its stock", `{ product(id: "x") { name orderItems(first: 2) { edges { cursor } } } }`, nil, "Product", "", 0},
		{"fields on another type", `{ node(id: "x") { ... on User { tickets { edges { cursor } } } } }`, nil, "Organization", "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			op, root := operation(t, tc.query, tc.vars)
			u, ok := For(fieldContext(op, nil, root)).ObjectsOf(root, tc.typ).Combined()
			if tc.alias == "" {
				if ok {
					t.Fatalf("combined read of %s (first %d), want none", u.Alias, u.Args.First)
				}
				return
			}
			if !ok || u.Alias != tc.alias || u.Args.First != tc.first {
				t.Fatalf("combined = %+v (%v), want %s with first %d", u, ok, tc.alias, tc.first)
			}
		})
	}
}

// Every occurrence of a child list is planned, with its row (the variant its arguments select)
// and, in the plain form, its typed arguments.
func TestListsOfALevelWithTypedArguments(t *testing.T) {
	op, root := operation(t, `query($after: Time) { customers { edges { node {
	  a: orders(status: SHIPPED, first: 3, placedAfter: $after) { edges { node { items { sku } } } }
	  b: orders(after: "c") { edges { cursor } }
	  c: orders { edges { node { id } } } } } } }`, map[string]any{"after": "2024-05-01T10:00:00+02:00"})
	lists := For(fieldContext(op, nil, root)).NodesOf(root).Lists()
	if len(lists) != 3 {
		t.Fatalf("%d lists, want 3", len(lists))
	}
	a, b, c := lists[0], lists[1], lists[2]
	want := time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC)
	if !a.Plain || a.Field != FieldOf("Customer", "orders").Variant || a.Args.First != 3 || a.Args.Status == nil || *a.Args.Status != "SHIPPED" || a.Args.After == nil || !a.Args.After.Equal(want) {
		t.Fatalf("a: %+v (args %+v)", a, a.Args)
	}
	if b.Plain || b.Field != FieldOf("Customer", "orders") {
		t.Fatalf("b (a later page) is read by its own resolver: %+v", b)
	}
	if !c.Plain || c.Field.Variant == nil || c.Args.First != repository.DefaultPageSize || c.Args.Filtered() {
		t.Fatalf("c: %+v", c)
	}
	if a.Nodes == nil || a.Nodes.Type != "Order" || len(a.Nodes.toOne) != 1 || a.Nodes.toOne[0].field != FieldOf("Order", "items") {
		t.Fatalf("a's orders look up their items: %+v", a.Nodes)
	}
}

// A resolver finds the level its parent's plan made for its place: the same value, so that a list
// started ahead (keyed with the level of its elements) is the one the resolver reads.
func TestResolversFindTheLevelsTheirParentPlanned(t *testing.T) {
	op, root := operation(t, `{ organizations { edges { node { users(first: 2) { edges { node { tickets { edges { node { title } } } } } } } } } }`, nil)
	ctx := fieldContext(op, nil, root)
	orgs := Nodes(ctx)
	users := orgs.Lists()[0]
	// The users field as gqlgen hands it to Organization.users, and the tickets field to User.tickets.
	usersField := child(t, op, nodesOf(t, op, root), "Organization", "users")
	if got := For(ctx).NodesOf(usersField); got != users.Nodes {
		t.Fatalf("Organization.users finds level %p, its parent planned %p", got, users.Nodes)
	}
	ticketsField := child(t, op, nodesOf(t, op, usersField), "User", "tickets")
	if got := For(ctx).NodesOf(ticketsField); got != users.Nodes.Lists()[0].Nodes || got == nil {
		t.Fatalf("User.tickets finds level %p, its parent planned %p", got, users.Nodes.Lists()[0].Nodes)
	}
	if plan := For(ctx); plan != For(ctx) || Nodes(ctx) != orgs {
		t.Fatal("one plan per operation, one level per place")
	}
}

func TestLookupsFollowTheSelectedToOneFields(t *testing.T) {
	op, root := operation(t, `{ nodes(ids: ["x"]) { ... on Ticket { r: reporter { name } organization { name } } } }`, nil)
	l := For(fieldContext(op, nil, root)).ObjectsOf(root, "Ticket")
	items := []repository.Entity{
		&saas.Ticket{ID: user1, OrgID: org1, ReporterID: user1},
		&saas.Ticket{ID: user2, OrgID: org2, ReporterID: user2},
	}
	got := l.Lookups(0, items)
	want := []repository.Key{must(saas.UserKey(org1, user1)), must(saas.UserKey(org2, user2)), must(saas.OrganizationKey(org1)), must(saas.OrganizationKey(org2))}
	if !slices.Equal(got, want) {
		t.Fatalf("Lookups(0) = %v, want %v", got, want)
	}
	if next := l.Lookups(1, nil); next != nil {
		t.Fatalf("no relations: step 1 = %v", next)
	}
	// A to-one field asked for its ID alone is answered from the ticket's own item (IDOnly).
	op, root = operation(t, `{ nodes(ids: ["x"]) { ... on Ticket { r: reporter { id __typename } organization { ... on Node { id } } } } }`, nil)
	if keys := For(fieldContext(op, nil, root)).ObjectsOf(root, "Ticket").Lookups(0, items); len(keys) != 0 {
		t.Fatalf("ID-only to-one fields look up %v", keys)
	}
	op, root = operation(t, `{ nodes(ids: ["x"]) { ... on Ticket { title } } }`, nil)
	if keys := For(fieldContext(op, nil, root)).ObjectsOf(root, "Ticket").Lookups(0, items); len(keys) != 0 {
		t.Fatalf("no to-one field selected, keys %v", keys)
	}
	// The tickets of a user's list share their reporter and organization: the user's level looks
	// them up once (ListParentKeys), not every ticket.
	op, root = operation(t, `{ user(id: "x") { tickets { edges { node { r: reporter { id } organization { name } } } } } }`, nil)
	if keys := For(fieldContext(op, nil, root)).NodesOf(child(t, op, root, "User", "tickets")).Lookups(0, items); len(keys) != 0 {
		t.Fatalf("a user's tickets look up %v, which their list looks up once", keys)
	}
	o := &commerce.Order{ID: user1, CustomerID: org1, ItemCount: 3}
	op, root = operation(t, `{ ordersByStatus(status: OPEN) { edges { node { items { sku } customer { name } } } } }`, nil)
	keys := For(fieldContext(op, nil, root)).NodesOf(root).Lookups(0, []repository.Entity{o})
	if len(keys) != 4 || !slices.Equal(keys[:3], o.ItemKeys()) {
		t.Fatalf("an order's three items and its customer: %v", keys)
	}
	// A customer's orders without a status come with their items: nothing to look up for them.
	op, root = operation(t, `{ customer(id: "x") { orders { edges { node { items { sku } } } } s: orders(status: OPEN) { edges { node { items { sku } } } } } }`, nil)
	lists := For(fieldContext(op, nil, root)).ObjectsOf(root, "Customer").Lists()
	if keys := lists[0].Nodes.Lookups(0, []repository.Entity{o}); len(keys) != 0 {
		t.Fatalf("items read with their orders are looked up again: %v", keys)
	}
	if keys := lists[1].Nodes.Lookups(0, []repository.Entity{o}); !slices.Equal(keys, o.ItemKeys()) {
		t.Fatalf("the items of orders with a status are looked up: %v", keys)
	}
}

// The lookups every element of a user's ticket list makes whatever the Query returns: its
// organization's, queued with the user's level; the reporter is the user itself, read already,
// and needs no lookup.
func TestListParentKeysOfATicketList(t *testing.T) {
	u := &saas.User{ID: user1, OrgID: org1}
	op, root := operation(t, `{ nodes(ids: ["x"]) { ... on User { tickets(status: OPEN) { edges { node { organization { name } reporter { name } } } } } } }`, nil)
	l := For(fieldContext(op, nil, root)).ObjectsOf(root, "User")
	want := []repository.Key{must(saas.OrganizationKey(org1))}
	if got := l.ListParentKeys([]repository.Entity{u}); !slices.Equal(got, want) {
		t.Fatalf("ListParentKeys = %v, want %v", got, want)
	}
	if got := l.Lookups(0, []repository.Entity{u}); !slices.Equal(got, want) {
		t.Fatalf("Lookups(0) = %v, want the list's parent keys %v", got, want)
	}
	op, root = operation(t, `{ nodes(ids: ["x"]) { ... on User { tickets { edges { node { title } } } } } }`, nil)
	if keys := For(fieldContext(op, nil, root)).ObjectsOf(root, "User").ListParentKeys([]repository.Entity{u}); len(keys) != 0 {
		t.Fatalf("nothing asked of the tickets' parents: %v", keys)
	}
}

// Relations are read two levels deep: the relations asked for on each employee, then their
// targets together with the relations asked for on each manager and mentor, then those targets.
func TestEmployeeRelationsAreReadTwoLevelsAhead(t *testing.T) {
	op, root := operation(t, `{ employeesByJobTitle(jobTitle: "x") { edges { node { department { name } boss: manager { department { name } mentor { id } } manager { manager { id } } } } } }`, nil)
	emps := For(fieldContext(op, nil, root)).NodesOf(root)
	e := &hr.Employee{ID: user1}
	step0 := emps.Lookups(0, []repository.Entity{e})
	if want := []repository.Key{must(hr.RelationKey(user1, hr.RelDepartment)), must(hr.RelationKey(user1, hr.RelManager))}; !slices.Equal(step0, want) {
		t.Fatalf("step 0 = %v, want %v", step0, want)
	}
	dept := &hr.Relation{EmployeeID: user1, Type: hr.RelDepartment, TargetID: org1}
	mgr := &hr.Relation{EmployeeID: user1, Type: hr.RelManager, TargetID: user2}
	step1 := emps.Lookups(1, []repository.Entity{dept, mgr, e})
	want := []repository.Key{must(hr.DepartmentKey(org1)), must(hr.EmployeeKey(user2)),
		must(hr.RelationKey(user2, hr.RelDepartment)), must(hr.RelationKey(user2, hr.RelMentor)), must(hr.RelationKey(user2, hr.RelManager))}
	if !slices.Equal(step1, want) {
		t.Fatalf("step 1 = %v, want %v", step1, want)
	}
	mgrsDept := &hr.Relation{EmployeeID: user2, Type: hr.RelDepartment, TargetID: org2}
	if step2 := emps.Lookups(2, []repository.Entity{mgrsDept, e}); !slices.Equal(step2, []repository.Key{must(hr.DepartmentKey(org2))}) {
		t.Fatalf("step 2 = %v", step2)
	}
	if emps.Lookups(3, []repository.Entity{mgrsDept}) != nil {
		t.Fatal("nothing after step 2")
	}
	// A department's employees come with their DEPARTMENT relation items (the list's own Query
	// reads them): only the manager relation is looked up.
	op, root = operation(t, `{ departments { edges { node { employees { edges { node { department { name } manager { id } } } } } } } }`, nil)
	depts := For(fieldContext(op, nil, root)).NodesOf(root)
	members := depts.Lists()[0].Nodes.Lookups(0, []repository.Entity{e})
	if !slices.Equal(members, []repository.Key{must(hr.RelationKey(user1, hr.RelManager))}) {
		t.Fatalf("members' step 0 = %v", members)
	}
	if depts.Lookups(0, []repository.Entity{&hr.Department{ID: org1}}) != nil {
		t.Fatal("a selection on departments asks no lookups")
	}
}

// Every row of the table names a field the schema has on that type, with the arguments it names;
// every read names an access pattern and its key condition; gqlgen collects fields for the types
// the planner says (so both share one collection per place).
func TestTableMatchesTheSchema(t *testing.T) {
	s := loadSchema(t)
	for k, f := range Table {
		rows := []*Field{f}
		if f.Variant != nil {
			rows = append(rows, f.Variant)
		}
		for _, row := range rows {
			def := s.Types[k.typ]
			field := def.Fields.ForName(k.name)
			if field == nil {
				t.Errorf("the schema has no field %s.%s", k.typ, k.name)
				continue
			}
			for _, arg := range []string{row.Filters.Status, row.Filters.After, row.Filters.Before, row.By} {
				if arg != "" && field.Arguments.ForName(arg) == nil {
					t.Errorf("%s.%s has no argument %s", k.typ, k.name, arg)
				}
			}
			for name := range row.SameForAll {
				if FieldOf(row.Of, name) == nil {
					t.Errorf("%s.%s: SameForAll names %s.%s, which has no row", k.typ, k.name, row.Of, name)
				}
			}
			if row.Of != "" && s.Types[row.Of] == nil {
				t.Errorf("%s.%s returns %s, which the schema lacks", k.typ, k.name, row.Of)
			}
			if (row.Kind == List || row.Kind == ToOne || row.Kind == Items || row.Kind == Relation) && len(row.Reads) == 0 {
				t.Errorf("%s.%s reads nothing", k.typ, k.name)
			}
			if (row.Kind == Free) != (row.Answers != "") || row.Kind == Free && len(row.Reads) > 0 {
				t.Errorf("%s.%s: a Free field names the access pattern that answers it and reads nothing", k.typ, k.name)
			}
			for _, r := range append(slices.Clone(row.Reads), combinedReads(row)...) {
				if r.ID == "" || r.KeyCondition() == "" || r.Operation == "" || r.Calls == 0 {
					t.Errorf("%s.%s: incomplete read %+v", k.typ, k.name, r)
				}
			}
		}
	}
	for _, root := range []string{"Query"} {
		for _, f := range s.Types[root].Fields {
			if f.Name[0] != '_' && FieldOf(root, f.Name) == nil {
				t.Errorf("root field %s.%s has no row", root, f.Name)
			}
		}
	}
	// Every field below the root that returns objects (a list, a connection, a to-one field) has
	// a row: without one, explain and the complexity limit would price it at nothing.
	for name, def := range s.Types {
		if def.Kind != "OBJECT" || name[0] == '_' || name == "Query" || name == "Mutation" || name == "Subscription" || !isNode(s, def) {
			continue
		}
		for _, f := range def.Fields {
			ft := s.Types[f.Type.Name()]
			if f.Name[0] == '_' || ft == nil || ft.Kind == "SCALAR" || ft.Kind == "ENUM" {
				continue
			}
			if FieldOf(name, f.Name) == nil {
				t.Errorf("field %s.%s returns %s and has no row", name, f.Name, f.Type)
			}
		}
	}
	for name, def := range s.Types {
		if def.Kind != "OBJECT" || name[0] == '_' {
			continue
		}
		want := append([]string{name}, def.Interfaces...)
		if got := implementors(name); !slices.Equal(got, want) {
			t.Errorf("implementors(%s) = %v, gqlgen collects %v", name, got, want)
		}
	}
}

// isNode reports whether def is a type of the data (not a connection, an edge, page info or a
// mutation's payload): what the plan has rows for.
func isNode(s *ast.Schema, def *ast.Definition) bool {
	for _, n := range []string{"Connection", "Edge", "Payload"} {
		if strings.HasSuffix(def.Name, n) {
			return false
		}
	}
	return def.Name != "PageInfo" && def.Name != "Explain"
}

func combinedReads(f *Field) []Read {
	if f.Combined == nil {
		return nil
	}
	return []Read{*f.Combined}
}

func must(k repository.Key, err error) repository.Key {
	if err != nil {
		panic(err)
	}
	return k
}
