package auth

import (
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"singletable/graph"
)

// Deny by default: every root field and mutation of the schema has a policy, every policy names a
// field the schema has, and every Node type has a scope check.
func TestEveryRootFieldHasAPolicy(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	seen := map[string]bool{}
	for _, root := range []*ast.Definition{schema.Query, schema.Mutation} {
		if root == nil {
			continue
		}
		for _, f := range root.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue // introspection follows its own setting
			}
			seen[root.Name+"."+f.Name] = true
			if !HasPolicy(root.Name, f.Name) {
				t.Errorf("%s.%s has no policy in auth.rootPolicy: everyone is refused until it gets one", root.Name, f.Name)
			}
		}
	}
	if schema.Subscription != nil && len(schema.Subscription.Fields) > 0 {
		t.Error("subscriptions need policies too")
	}
	for k := range rootPolicy {
		if !seen[k] {
			t.Errorf("policy %s names no field of the schema", k)
		}
	}
	for _, d := range schema.GetPossibleTypes(schema.Types["Node"]) {
		if !HasNodeScope(d.Name) {
			t.Errorf("Node type %s has no scope check in auth.nodeScopes", d.Name)
		}
	}
}

// The role table, field by field: who may use what.
func TestRoleTable(t *testing.T) {
	org, cust := "O1", "C1"
	principals := map[Role]Principal{
		RoleAdmin:     {Subject: "a", Roles: []Role{RoleAdmin}},
		RoleOrgAdmin:  {Subject: "oa", Roles: []Role{RoleOrgAdmin}, Org: org},
		RoleOrgMember: {Subject: "om", Roles: []Role{RoleOrgMember}, Org: org},
		RoleHR:        {Subject: "h", Roles: []Role{RoleHR}},
		RoleSales:     {Subject: "s", Roles: []Role{RoleSales}},
		RoleCustomer:  {Subject: "c", Roles: []Role{RoleCustomer}, Customer: cust},
	}
	all := Roles
	saas := []Role{RoleAdmin, RoleOrgAdmin, RoleOrgMember}
	hr := []Role{RoleAdmin, RoleHR}
	com := []Role{RoleAdmin, RoleSales, RoleCustomer}
	staff := []Role{RoleAdmin, RoleSales}
	want := map[string][]Role{
		"Query.node": all, "Query.nodes": all,
		"Query.organization": saas, "Query.organizations": saas, "Query.user": saas, "Query.ticket": saas,
		"Mutation.createOrganization": {RoleAdmin}, "Mutation.createUser": {RoleAdmin, RoleOrgAdmin},
		"Mutation.createTicket": saas, "Mutation.updateTicket": saas,
		"Query.department": hr, "Query.employee": hr, "Query.departments": hr, "Query.employeesByJobTitle": hr,
		"Query.employeesHiredSince": hr, "Query.locations": hr, "Mutation.createLocation": hr,
		"Mutation.createDepartment": hr, "Mutation.renameDepartment": hr, "Mutation.hireEmployee": hr,
		"Mutation.transferEmployee": hr, "Mutation.assignManager": hr, "Mutation.assignMentor": hr,
		"Query.customer": com, "Query.customers": com, "Query.order": com, "Query.ordersByStatus": staff,
		"Mutation.createCustomer": staff, "Mutation.addMailingAddress": com, "Mutation.placeOrder": com,
		"Mutation.updateOrderStatus": staff,
	}
	if len(want) != len(rootPolicy) {
		t.Fatalf("the table lists %d fields, the policy %d", len(want), len(rootPolicy))
	}
	for field, roles := range want {
		obj, name, _ := strings.Cut(field, ".")
		for role, p := range principals {
			if got := p.MayUse(obj, name); got != slices.Contains(roles, role) {
				t.Errorf("%s for %s: %v", field, role, got)
			}
		}
	}
	// No principal, or org and customer roles without their tenant, may use nothing.
	for _, p := range []Principal{{}, {Subject: "x", Roles: []Role{RoleOrgAdmin, RoleOrgMember, RoleCustomer}}} {
		for field := range want {
			obj, name, _ := strings.Cut(field, ".")
			if p.MayUse(obj, name) {
				t.Errorf("%+v may use %s", p, field)
			}
		}
	}
	if (Principal{Roles: []Role{RoleAdmin}}).MayUse("Query", "somethingNew") {
		t.Error("a field without a policy was allowed")
	}
}

func TestNodeScopes(t *testing.T) {
	om := Principal{Subject: "om", Roles: []Role{RoleOrgMember}, Org: "O1"}
	cu := Principal{Subject: "c", Roles: []Role{RoleCustomer}, Customer: "C1"}
	sales := Principal{Subject: "s", Roles: []Role{RoleSales}}
	hr := Principal{Subject: "h", Roles: []Role{RoleHR}}
	admin := Principal{Subject: "a", Roles: []Role{RoleAdmin}}
	cases := []struct {
		p     Principal
		typ   string
		parts []string
		want  Decision
	}{
		{om, "Organization", []string{"O1"}, Allow},
		{om, "Organization", []string{"O2"}, Deny},
		{om, "User", []string{"O1", "U1"}, Allow},
		{om, "User", []string{"O2", "U1"}, Deny},
		{om, "Ticket", []string{"T1"}, AfterRead},
		{om, "Customer", []string{"C1"}, Deny},
		{om, "Department", []string{"D1"}, Deny},
		{admin, "Ticket", []string{"T1"}, Allow},
		{hr, "Ticket", []string{"T1"}, Deny},
		{hr, "Employee", []string{"E1"}, Allow},
		{hr, "Location", []string{"US", "CA", "SF", "94105", "L1"}, Allow},
		{hr, "Order", []string{"C1", "O1"}, Deny},
		{cu, "Customer", []string{"C1"}, Allow},
		{cu, "Customer", []string{"C2"}, Deny},
		{cu, "Order", []string{"C1", "X"}, Allow},
		{cu, "Order", []string{"C2", "X"}, Deny},
		{sales, "Order", []string{"C2", "X"}, Allow},
		{sales, "Organization", []string{"O1"}, Deny},
		{admin, "Unknown", []string{"x"}, Deny},
		{admin, "Organization", nil, Deny},
	}
	for _, c := range cases {
		if got := c.p.SeesID(c.typ, c.parts); got != c.want {
			t.Errorf("%v sees %s %v: %v, want %v", c.p.Roles, c.typ, c.parts, got, c.want)
		}
	}
	if !om.SeesOrg("O1") || om.SeesOrg("O2") || om.SeesOrg("") {
		t.Error("SeesOrg")
	}
	if o, narrowed := om.OwnOrganization(); !narrowed || o != "O1" {
		t.Error("an org role's organizations are narrowed")
	}
	if _, narrowed := admin.OwnOrganization(); narrowed {
		t.Error("an admin's organizations are not narrowed")
	}
	if c, narrowed := cu.OwnCustomer(); !narrowed || c != "C1" {
		t.Error("a customer's customers are narrowed")
	}
	if _, narrowed := sales.OwnCustomer(); narrowed {
		t.Error("sales sees every customer")
	}
}
