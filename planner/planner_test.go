package planner

import (
	"slices"
	"testing"

	"singletable/graph/model"
	"singletable/loaders"
	"singletable/repository"
)

const (
	org1  = "01J00000000000000000000001"
	org2  = "01J00000000000000000000002"
	user1 = "01J00000000000000000000003"
	user2 = "01J00000000000000000000004"
)

func TestCombinedFirstReadsTheFormTheCombinedQueryAnswers(t *testing.T) {
	cases := []struct {
		name  string
		query string
		vars  map[string]any
		c     Combined
		typ   string
		want  int
	}{
		{"users with first", `{ node(id: "x") { ... on Organization { users(first: 5) { edges { node { id } } } } } }`, nil, OrganizationUsers, model.Organizations.Name, 5},
		{"users default page", `{ organization(id: "x") { users { edges { node { name } } } } }`, nil, OrganizationUsers, model.Organizations.Name, repository.DefaultPageSize},
		{"users after a cursor", `{ organization(id: "x") { users(after: "c") { edges { node { name } } } } }`, nil, OrganizationUsers, model.Organizations.Name, 0},
		{"users page too large", `{ organization(id: "x") { users(first: 500) { edges { cursor } } } }`, nil, OrganizationUsers, model.Organizations.Name, 0},
		{"users from a variable", `query($n: Int) { organization(id: "x") { users(first: $n) { edges { cursor } } } }`, map[string]any{"n": int64(7)}, OrganizationUsers, model.Organizations.Name, 7},
		{"users skipped", `query($s: Boolean!) { organization(id: "x") { users @skip(if: $s) { edges { cursor } } } }`, map[string]any{"s": true}, OrganizationUsers, model.Organizations.Name, 0},
		{"no users asked", `{ organization(id: "x") { name } }`, nil, OrganizationUsers, model.Organizations.Name, 0},
		{"tickets through a fragment", `{ nodes(ids: ["x"]) { ...U } } fragment U on User { tickets(first: 3) { edges { node { title } } } }`, nil, UserTickets, model.Users.Name, 3},
		{"tickets with a status", `{ user(id: "x") { tickets(first: 3, status: OPEN) { edges { cursor } } } }`, nil, UserTickets, model.Users.Name, 0},
		{"tickets created after", `{ user(id: "x") { tickets(createdAfter: "2024-01-01T00:00:00Z") { edges { cursor } } } }`, nil, UserTickets, model.Users.Name, 0},
		{"second alias in the form", `{ user(id: "x") { a: tickets(status: OPEN) { edges { cursor } } b: tickets(first: 4) { edges { cursor } } } }`, nil, UserTickets, model.Users.Name, 4},
		{"orders", `{ customer(id: "x") { orders(first: 2) { edges { node { items { sku } } } } } }`, nil, CustomerOrders, model.Customers.Name, 2},
		{"orders placed before", `{ customer(id: "x") { orders(placedBefore: "2024-01-01T00:00:00Z") { edges { cursor } } } }`, nil, CustomerOrders, model.Customers.Name, 0},
		{"order items", `{ order(id: "x") { items { sku } } }`, nil, OrderItems, model.Orders.Name, 1},
		{"order without items", `{ order(id: "x") { status } }`, nil, OrderItems, model.Orders.Name, 0},
		{"fields on another type", `{ node(id: "x") { ... on User { tickets { edges { cursor } } } } }`, nil, OrganizationUsers, model.Organizations.Name, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			op, root := operation(t, tc.query, tc.vars)
			if got := tc.c.First(OnSet(op, root.Selections, tc.typ)); got != tc.want {
				t.Fatalf("First = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestCombinedForAndPerParentOnly(t *testing.T) {
	for typ, want := range map[string]bool{model.Organizations.Name: true, model.Users.Name: true, model.Customers.Name: true, model.Orders.Name: true, model.Tickets.Name: false, model.Employees.Name: false} {
		if _, ok := CombinedFor(typ); ok != want {
			t.Errorf("CombinedFor(%s) = %v, want %v", typ, ok, want)
		}
	}
	if !OrderItems.PerParentOnly() || UserTickets.PerParentOnly() {
		t.Error("only an order's items are looked up by key when several parents are asked for")
	}
}

// The list resolver accepts the page read ahead only when its own arguments have the combined
// form and the same page size.
func TestAnswersChecksTheListsOwnArguments(t *testing.T) {
	op, root := operation(t, `{ user(id: "x") { a: tickets(first: 3) { edges { cursor } } b: tickets(first: 3, status: OPEN) { edges { cursor } } c: tickets { edges { cursor } } } }`, nil)
	a, b, c := root, root, root
	for _, f := range OnSet(op, root.Selections, model.Users.Name).fields {
		switch f.Alias {
		case "a":
			a = f
		case "b":
			b = f
		case "c":
			c = f
		}
	}
	if !UserTickets.Answers(fieldContext(op, a), 3) {
		t.Error("a: the page read ahead with first 3 answers tickets(first: 3)")
	}
	if UserTickets.Answers(fieldContext(op, a), 20) {
		t.Error("a: a page of 20 does not answer tickets(first: 3)")
	}
	if UserTickets.Answers(fieldContext(op, b), 3) {
		t.Error("b: a filtered list is not the page read ahead")
	}
	if !UserTickets.Answers(fieldContext(op, c), repository.DefaultPageSize) || UserTickets.Answers(fieldContext(op, c), 0) {
		t.Error("c: the default page size is answered by a default page, and nothing by no page")
	}
}

func TestNodesOfFindsConnectionTypesFromTheSchema(t *testing.T) {
	op, root := operation(t, `{ organizations { edges { node { id ...O } } } } fragment O on Organization { name users { pageInfo { hasNextPage } } }`, nil)
	s := NodesOf(op, root)
	if s.Type() != model.Organizations.Name || !s.Has("name") || !s.Has("users") || !s.Has("id") || s.Has("createdAt") {
		t.Fatalf("nodes of organizations: type %q, fields %v", s.Type(), names(s))
	}
	if n := s.ChildNodes(s.all("users")[0]); n.Type() != "" || len(n.fields) != 0 {
		t.Fatalf("users selects no edges, got %q %v", n.Type(), names(n))
	}
}

func TestRefKeysFollowTheSelectedToOneFields(t *testing.T) {
	op, root := operation(t, `{ user(id: "x") { tickets { edges { node { r: reporter { id } organization { name } } } } } }`, nil)
	tickets := child(t, op, root, model.Users.Name, "tickets")
	s := NodesOf(op, tickets)
	items := []*repository.Ticket{
		{ID: user1, OrgID: org1, ReporterID: user1},
		{ID: user2, OrgID: org2, ReporterID: user2},
	}
	got := RefKeys(s, items)
	want := []repository.Key{must(repository.UserKey(org1, user1)), must(repository.UserKey(org2, user2)), must(repository.OrganizationKey(org1)), must(repository.OrganizationKey(org2))}
	if !slices.Equal(got, want) {
		t.Fatalf("RefKeys = %v, want %v", got, want)
	}

	op, root = operation(t, `{ user(id: "x") { tickets { edges { node { title } } } } }`, nil)
	if keys := RefKeys(NodesOf(op, child(t, op, root, model.Users.Name, "tickets")), items); len(keys) != 0 {
		t.Fatalf("no to-one field selected, keys %v", keys)
	}
	o := &repository.Order{ID: user1, CustomerID: org1, ItemCount: 3}
	op, root = operation(t, `{ ordersByStatus(status: OPEN) { edges { node { items { sku } customer { name } } } } }`, nil)
	if keys := RefKeys(NodesOf(op, root), []*repository.Order{o}); len(keys) != 4 || !slices.Equal(keys[1:], o.ItemKeys()) {
		t.Fatalf("an order's customer and its three items: %v", keys)
	}
}

func TestParentKeysOfATicketList(t *testing.T) {
	u := &repository.User{ID: user1, OrgID: org1}
	op, root := operation(t, `{ nodes(ids: ["x"]) { ... on User { tickets(status: OPEN) { edges { node { organization { id } reporter { id } } } } } } }`, nil)
	s := OnSet(op, root.Selections, model.Users.Name)
	got := ListParentKeys(s, []*repository.User{u})
	want := []repository.Key{must(repository.OrganizationKey(org1)), u.Key()}
	if !slices.Equal(got, want) {
		t.Fatalf("ListParentKeys = %v, want %v", got, want)
	}
	if keys := ParentKeys(model.Users.Name, "tickets", NodesOf(op, child(t, op, root, model.Users.Name, "tickets")), []*repository.User{u}); !slices.Equal(keys, want) {
		t.Fatalf("ParentKeys = %v, want %v", keys, want)
	}
	op, root = operation(t, `{ nodes(ids: ["x"]) { ... on User { tickets { edges { node { title } } } } } }`, nil)
	if keys := ListParentKeys(OnSet(op, root.Selections, model.Users.Name), []*repository.User{u}); len(keys) != 0 {
		t.Fatalf("nothing asked of the tickets' parents: %v", keys)
	}
}

func TestEmployeeAheadReadsTwoLevelsOfRelations(t *testing.T) {
	op, root := operation(t, `{ departments { edges { node { employees { edges { node { department { name } boss: manager { department { name } mentor { id } } manager { manager { id } } } } } } } } }`, nil)
	depts := NodesOf(op, root)
	list, _, ok := depts.Sole("employees")
	if !ok {
		t.Fatal("one employees field")
	}
	got := EmployeeAhead(depts.ChildNodes(list))
	want := loaders.EmployeeAhead{Department: true, Manager: true, OfManager: loaders.RelationsAhead{Department: true, Manager: true, Mentor: true}}
	if got != want {
		t.Fatalf("EmployeeAhead = %+v, want %+v", got, want)
	}
	if a := EmployeeAhead(depts); a != (loaders.EmployeeAhead{}) {
		t.Fatalf("a selection on departments reads no employee relations: %+v", a)
	}
}

func TestSoleRefusesAliasedLists(t *testing.T) {
	op, root := operation(t, `{ department(id: "x") { a: employees(first: 2) { edges { cursor } } b: employees(first: 3) { edges { cursor } } } }`, nil)
	if _, _, ok := OnSet(op, root.Selections, model.Departments.Name).Sole("employees"); ok {
		t.Fatal("two employees lists: none may be started ahead")
	}
	op, root = operation(t, `{ department(id: "x") { employees(first: 2) { edges { cursor } } } }`, nil)
	_, args, ok := OnSet(op, root.Selections, model.Departments.Name).Sole("employees")
	if n, _ := IntArg(args, "first"); !ok || n != 2 {
		t.Fatalf("sole employees list: ok %v, args %v", ok, args)
	}
}

// Every row of the tables names a field the schema has on that type: a renamed field fails here
// instead of silently switching an optimisation off.
func TestTablesNameSchemaFields(t *testing.T) {
	s := loadSchema(t)
	has := func(typ, field string) {
		t.Helper()
		def := s.Types[typ]
		if def == nil || def.Fields.ForName(field) == nil {
			t.Errorf("the schema has no field %s.%s", typ, field)
		}
	}
	for typ, edges := range toOneEdges {
		for _, e := range edges {
			has(typ, e.field)
		}
	}
	for _, e := range parentEdges {
		has(e.parent, e.list)
		list := s.Types[e.parent].Fields.ForName(e.list)
		if list == nil {
			continue
		}
		node := s.Types[s.Types[s.Types[list.Type.Name()].Fields.ForName(edgesField).Type.Name()].Fields.ForName(nodeField).Type.Name()]
		has(node.Name, e.field)
	}
	for _, c := range combinedReads {
		has(c.Parent, c.List)
		for _, f := range c.filters {
			if s.Types[c.Parent].Fields.ForName(c.List).Arguments.ForName(f) == nil {
				t.Errorf("%s.%s has no argument %s", c.Parent, c.List, f)
			}
		}
	}
	for _, r := range employeeRelations {
		has(model.Employees.Name, r.field)
	}
}

func must(k repository.Key, err error) repository.Key {
	if err != nil {
		panic(err)
	}
	return k
}

func names(s Selection) []string {
	var out []string
	for _, f := range s.fields {
		out = append(out, f.Name)
	}
	return out
}

func TestFirstOfIsTheCombinedFormOfOneListField(t *testing.T) {
	op, root := operation(t, `{ organization(id: "x") { users { edges { node { tickets(first: 5) { edges { cursor } } } } } } }`, nil)
	users := NodesOf(op, child(t, op, root, model.Organizations.Name, "users"))
	_, args, ok := users.Sole("tickets")
	if n := UserTickets.FirstOf(args); !ok || n != 5 {
		t.Fatalf("FirstOf = %d (sole %v)", n, ok)
	}
	if n := UserTickets.FirstOf(nil); n != 0 {
		t.Fatalf("no field: FirstOf = %d", n)
	}
	op, root = operation(t, `{ organization(id: "x") { users { edges { node { tickets(status: CLOSED) { edges { cursor } } } } } } }`, nil)
	_, args, _ = NodesOf(op, child(t, op, root, model.Organizations.Name, "users")).Sole("tickets")
	if n := UserTickets.FirstOf(args); n != 0 {
		t.Fatalf("filtered: FirstOf = %d", n)
	}
}
