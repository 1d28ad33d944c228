package auth

import (
	"slices"
	"strings"
	"testing"
)

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
	wh := []Role{RoleAdmin, RoleSales, RoleHR}
	want := map[string][]Role{
		"Query.node": all, "Query.nodes": all,
		"Query.organization": saas, "Query.organizations": saas, "Query.user": saas, "Query.ticket": saas,
		"Mutation.createOrganization": {RoleAdmin}, "Mutation.createUser": {RoleAdmin, RoleOrgAdmin},
		"Mutation.createTicket": saas, "Mutation.updateTicket": saas,
		"Mutation.updateOrganization": {RoleAdmin, RoleOrgAdmin}, "Mutation.updateUser": {RoleAdmin, RoleOrgAdmin},
		"Mutation.deleteTicket": {RoleAdmin, RoleOrgAdmin}, "Mutation.deleteUser": {RoleAdmin, RoleOrgAdmin},
		"Mutation.deleteOrganization": {RoleAdmin},
		"Query.department":            hr, "Query.employee": hr, "Query.departments": hr, "Query.employeesByJobTitle": hr,
		"Query.employeesHiredSince": hr, "Query.locations": hr, "Mutation.createLocation": hr,
		"Mutation.createDepartment": hr, "Mutation.renameDepartment": hr, "Mutation.hireEmployee": hr,
		"Mutation.transferEmployee": hr, "Mutation.assignManager": hr, "Mutation.assignMentor": hr,
		"Mutation.relocateDepartment": hr, "Mutation.unassignManager": hr, "Mutation.unassignMentor": hr,
		"Mutation.removeEmployee": hr, "Mutation.deleteDepartment": hr, "Mutation.deleteLocation": hr,
		"Mutation.updateEmployee": hr, "Query.employeesByName": hr, "Mutation.assignWarehouse": hr,
		"Query.customer": com, "Query.customers": com, "Query.order": com, "Query.ordersByStatus": staff,
		"Mutation.createCustomer": staff, "Mutation.addMailingAddress": com, "Mutation.placeOrder": com,
		"Mutation.updateCustomer": com, "Mutation.updateMailingAddress": com, "Mutation.removeMailingAddress": com,
		"Mutation.deleteCustomer":    staff,
		"Mutation.updateOrderStatus": staff, "Mutation.cancelOrder": com,
		"Query.product": com, "Query.products": com, "Query.warehouse": wh, "Query.warehouses": wh,
		"Query.topAccountReps": staff, "Mutation.assignAccountRep": staff,
		"Mutation.createProduct": staff, "Mutation.createWarehouse": staff, "Mutation.setInventory": staff,
		"Subscription.ticketChanged": saas, "Subscription.orderChanged": com, "Subscription.employeeChanged": hr, "Subscription.inventoryChanged": staff,
		"Query.ticketChanges": saas, "Query.orderChanges": com, "Query.employeeChanges": hr, "Query.inventoryChanges": staff,
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

func TestScopes(t *testing.T) {
	om := Principal{Subject: "om", Roles: []Role{RoleOrgMember}, Org: "O1"}
	cu := Principal{Subject: "c", Roles: []Role{RoleCustomer}, Customer: "C1"}
	sales := Principal{Subject: "s", Roles: []Role{RoleSales}}
	hr := Principal{Subject: "h", Roles: []Role{RoleHR}}
	admin := Principal{Subject: "a", Roles: []Role{RoleAdmin}}
	cases := []struct {
		p     Principal
		scope Scope
		want  Decision
	}{
		{om, OrgScope("O1"), Allow},
		{om, OrgScope("O2"), Deny},
		{om, OrgScope(""), Deny},
		{om, CustomerScope("C1"), Deny},
		{om, HRScope(), Deny},
		{hr, OrgScope("O1"), Deny},
		{hr, HRScope(), Allow},
		{hr, CustomerScope("C1"), Deny},
		{cu, CustomerScope("C1"), Allow},
		{cu, CustomerScope("C2"), Deny},
		{sales, CustomerScope("C2"), Allow},
		{sales, OrgScope("O1"), Deny},
		{admin, Scope{}, Deny},
		{admin, OrgScope("O9"), Allow},
	}
	for _, c := range cases {
		if got := c.p.Sees(c.scope); got != c.want {
			t.Errorf("%v sees %+v: %v, want %v", c.p.Roles, c.scope, got, c.want)
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

// Fields narrowed below their object's scope: a customer sees a product, not its stock or the
// order lines of other customers; every other field follows its object.
func TestFieldPolicy(t *testing.T) {
	customer := Principal{Subject: "c", Roles: []Role{RoleCustomer}, Customer: "C1"}
	sales := Principal{Subject: "s", Roles: []Role{RoleSales}}
	for _, f := range []string{"inventory", "orderItems"} {
		if customer.MayRead("Product", f) {
			t.Errorf("a customer may read Product.%s", f)
		}
		if !sales.MayRead("Product", f) {
			t.Errorf("sales may not read Product.%s", f)
		}
	}
	if !customer.MayRead("Product", "name") || !customer.MayRead("Employee", "name") {
		t.Error("a customer may not read a product's name or its rep's")
	}
	hr := Principal{Subject: "h", Roles: []Role{RoleHR}}
	for _, f := range []string{"email", "department", "accounts"} {
		if customer.MayRead("Employee", f) {
			t.Errorf("a customer may read its rep's %s", f)
		}
	}
	if sales.MayRead("Employee", "department") || !sales.MayRead("Employee", "accounts") || hr.MayRead("Employee", "accounts") || !hr.MayRead("Employee", "department") {
		t.Error("sales see a rep's sales side, HR its HR side")
	}
}
