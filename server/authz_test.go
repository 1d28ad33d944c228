package server_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"singletable/auth"
	"singletable/graph"
	"singletable/graph/model"
)

// rootOp is one root field or mutation, called with IDs inside the caller's own scope (the org
// roles' organization A, the customer A).
type rootOp struct {
	field string
	query string
	vars  func(f *tenants, r auth.Role) map[string]any
	// may lists the roles allowed to use it; every other role gets FORBIDDEN.
	may []auth.Role
}

var (
	everyone  = auth.Roles
	saasRoles = []auth.Role{auth.RoleAdmin, auth.RoleOrgAdmin, auth.RoleOrgMember}
	hrRoles   = []auth.Role{auth.RoleAdmin, auth.RoleHR}
	shopRoles = []auth.Role{auth.RoleAdmin, auth.RoleSales, auth.RoleCustomer}
	shopStaff = []auth.Role{auth.RoleAdmin, auth.RoleSales}
	// warehouseRoles see warehouses: sales for their stock, HR for their staff.
	warehouseRoles = []auth.Role{auth.RoleAdmin, auth.RoleSales, auth.RoleHR}
)

func noVars(*tenants, auth.Role) map[string]any { return nil }

// ownID is an object each role may see, for node and nodes.
func (f *tenants) ownID(r auth.Role) string {
	switch r {
	case auth.RoleHR:
		return departmentID(f.dept)
	case auth.RoleSales, auth.RoleCustomer:
		return customerID(f.custA)
	}
	return orgID(f.orgA)
}

func idVar(id func(f *tenants) string) func(*tenants, auth.Role) map[string]any {
	return func(f *tenants, _ auth.Role) map[string]any { return map[string]any{"id": id(f)} }
}

func inputVar(in func(f *tenants, r auth.Role) map[string]any) func(*tenants, auth.Role) map[string]any {
	return func(f *tenants, r auth.Role) map[string]any { return map[string]any{"in": in(f, r)} }
}

var rootOps = []rootOp{
	{"node", `query($id: ID!) { node(id: $id) { id } }`, func(f *tenants, r auth.Role) map[string]any { return map[string]any{"id": f.ownID(r)} }, everyone},
	{"nodes", `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, func(f *tenants, r auth.Role) map[string]any { return map[string]any{"ids": []string{f.ownID(r)}} }, everyone},
	{"organization", `query($id: ID!) { organization(id: $id) { name } }`, idVar(func(f *tenants) string { return orgID(f.orgA) }), saasRoles},
	{"organizations", `{ organizations { edges { node { name } } } }`, noVars, saasRoles},
	{"user", `query($id: ID!) { user(id: $id) { name } }`, idVar(func(f *tenants) string { return userID(f.userA) }), saasRoles},
	{"ticket", `query($id: ID!) { ticket(id: $id) { title } }`, idVar(func(f *tenants) string { return ticketID(f.ticketA) }), saasRoles},
	{"department", `query($id: ID!) { department(id: $id) { name } }`, idVar(func(f *tenants) string { return departmentID(f.dept) }), hrRoles},
	{"employee", `query($id: ID!) { employee(id: $id) { name } }`, idVar(func(f *tenants) string { return employeeID(f.emp1) }), hrRoles},
	{"departments", `{ departments { edges { node { name } } } }`, noVars, hrRoles},
	{"employeesByJobTitle", `{ employeesByJobTitle(jobTitle: "Engineer") { edges { node { name } } } }`, noVars, hrRoles},
	{"employeesHiredSince", `{ employeesHiredSince(since: "2000-01-01T00:00:00Z") { edges { node { name } } } }`, noVars, hrRoles},
	{"employeesByName", `{ employeesByName(name: "Ann") { edges { node { name } } } }`, noVars, hrRoles},
	{"locations", `query($c: String!) { locations(country: $c) { edges { node { city } } } }`, func(f *tenants, _ auth.Role) map[string]any { return map[string]any{"c": f.loc.Country} }, hrRoles},
	{"customer", `query($id: ID!) { customer(id: $id) { name } }`, idVar(func(f *tenants) string { return customerID(f.custA) }), shopRoles},
	{"customers", `{ customers { edges { node { name } } } }`, noVars, shopRoles},
	{"order", `query($id: ID!) { order(id: $id) { totalCents } }`, idVar(func(f *tenants) string { return orderID(f.orderA) }), shopRoles},
	{"ordersByStatus", `{ ordersByStatus(status: OPEN) { edges { node { id } } } }`, noVars, shopStaff},
	{"product", `query($id: ID!) { product(id: $id) { name } }`, idVar(func(f *tenants) string { return model.Products.ID(f.product) }), shopRoles},
	{"products", `{ products { edges { node { name } } } }`, noVars, shopRoles},
	{"warehouse", `query($id: ID!) { warehouse(id: $id) { name } }`, idVar(func(f *tenants) string { return model.Warehouses.ID(f.warehouse) }), warehouseRoles},
	{"warehouses", `{ warehouses { edges { node { name } } } }`, noVars, warehouseRoles},

	{"createOrganization", `mutation($in: CreateOrganizationInput!) { createOrganization(input: $in) { id } }`,
		inputVar(func(_ *tenants, r auth.Role) map[string]any { return map[string]any{"name": "Org by " + string(r)} }), []auth.Role{auth.RoleAdmin}},
	{"createUser", `mutation($in: CreateUserInput!) { createUser(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			return map[string]any{"organizationId": orgID(f.orgA), "name": "New", "email": string(r) + "@alpha.example"}
		}), []auth.Role{auth.RoleAdmin, auth.RoleOrgAdmin}},
	{"createTicket", `mutation($in: CreateTicketInput!) { createTicket(input: $in) { id } }`,
		inputVar(func(f *tenants, _ auth.Role) map[string]any {
			return map[string]any{"reporterId": userID(f.userA), "title": "t", "body": "b"}
		}), saasRoles},
	{"updateTicket", `mutation($in: UpdateTicketInput!) { updateTicket(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			return map[string]any{"id": ticketID(f.ticketA), "title": "title by " + string(r)}
		}), saasRoles},
	{"createLocation", `mutation($in: CreateLocationInput!) { createLocation(input: $in) { id } }`,
		inputVar(func(_ *tenants, r auth.Role) map[string]any {
			return map[string]any{"country": "US", "state": "CA", "city": "SF", "postalCode": "94105", "address": string(r)}
		}), hrRoles},
	{"createDepartment", `mutation($in: CreateDepartmentInput!) { createDepartment(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			return map[string]any{"name": "Dept " + string(r), "locationId": locationID(f.loc)}
		}), hrRoles},
	{"renameDepartment", `mutation($in: RenameDepartmentInput!) { renameDepartment(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			return map[string]any{"id": departmentID(f.dept), "name": "Research " + string(r)}
		}), hrRoles},
	{"hireEmployee", `mutation($in: HireEmployeeInput!) { hireEmployee(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			return map[string]any{"departmentId": departmentID(f.dept), "name": "Hire", "email": string(r) + "@corp.example", "jobTitle": "Engineer"}
		}), hrRoles},
	{"transferEmployee", `mutation($in: TransferEmployeeInput!) { transferEmployee(input: $in) { id } }`,
		inputVar(func(f *tenants, _ auth.Role) map[string]any {
			return map[string]any{"employeeId": employeeID(f.emp1), "departmentId": departmentID(f.dept)}
		}), hrRoles},
	{"assignManager", `mutation($in: AssignManagerInput!) { assignManager(input: $in) { id } }`,
		inputVar(func(f *tenants, _ auth.Role) map[string]any {
			return map[string]any{"employeeId": employeeID(f.emp1), "managerId": employeeID(f.emp2)}
		}), hrRoles},
	{"assignMentor", `mutation($in: AssignMentorInput!) { assignMentor(input: $in) { id } }`,
		inputVar(func(f *tenants, _ auth.Role) map[string]any {
			return map[string]any{"employeeId": employeeID(f.emp1), "mentorId": employeeID(f.emp2)}
		}), hrRoles},
	{"assignWarehouse", `mutation($in: AssignWarehouseInput!) { assignWarehouse(input: $in) { id } }`,
		inputVar(func(f *tenants, _ auth.Role) map[string]any {
			return map[string]any{"employeeId": employeeID(f.emp1), "warehouseId": model.Warehouses.ID(f.warehouse)}
		}), hrRoles},
	{"createCustomer", `mutation($in: CreateCustomerInput!) { createCustomer(input: $in) { id } }`,
		inputVar(func(_ *tenants, r auth.Role) map[string]any {
			return map[string]any{"name": "Buyer", "email": string(r) + "@shop.example"}
		}), shopStaff},
	{"addMailingAddress", `mutation($in: AddMailingAddressInput!) { addMailingAddress(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			return map[string]any{"customerId": customerID(f.custA), "address": map[string]any{"label": string(r), "line1": "2 Elm St", "city": "X", "country": "US"}}
		}), shopRoles},
	{"placeOrder", `mutation($in: PlaceOrderInput!) { placeOrder(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			return map[string]any{"customerId": customerID(f.custA), "idempotencyKey": "k-" + string(r),
				"items": []map[string]any{{"sku": "S", "productName": "P", "quantity": 1, "unitPriceCents": 100}}}
		}), shopRoles},
	{"updateOrderStatus", `mutation($in: UpdateOrderStatusInput!) { updateOrderStatus(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			return map[string]any{"id": orderID(f.statusOrders[r]), "status": "SHIPPED"}
		}), shopStaff},
	{"updateEmployee", `mutation($in: UpdateEmployeeInput!) { updateEmployee(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			return map[string]any{"id": employeeID(f.emp2), "name": "Max " + string(r)}
		}), hrRoles},
	{"ticketChanges", `query($id: ID!) { ticketChanges(organizationId: $id) { edges { cursor } } }`, idVar(func(f *tenants) string { return orgID(f.orgA) }), saasRoles},
	{"orderChanges", `{ orderChanges { edges { cursor } } }`, noVars, shopRoles},
	{"employeeChanges", `{ employeeChanges { edges { cursor } } }`, noVars, hrRoles},
	{"inventoryChanges", `query($id: ID!) { inventoryChanges(productId: $id) { edges { cursor } } }`, idVar(func(f *tenants) string { return model.Products.ID(f.product) }), shopStaff},
	{"topAccountReps", `{ topAccountReps(from: "2026-01-01T00:00:00Z", to: "2026-03-01T00:00:00Z") { totalCents rep { name } } }`, noVars, shopStaff},
	{"assignAccountRep", `mutation($in: AssignAccountRepInput!) { assignAccountRep(input: $in) { id } }`,
		inputVar(func(f *tenants, _ auth.Role) map[string]any {
			return map[string]any{"customerId": customerID(f.custA), "employeeId": employeeID(f.emp1)}
		}), shopStaff},
	{"cancelOrder", `mutation($in: CancelOrderInput!) { cancelOrder(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any { return map[string]any{"id": orderID(f.cancelOrders[r])} }), shopRoles},
	{"createProduct", `mutation($in: CreateProductInput!) { createProduct(input: $in) { id } }`,
		inputVar(func(_ *tenants, r auth.Role) map[string]any {
			return map[string]any{"name": "Widget", "sku": "W-" + string(r)}
		}), shopStaff},
	{"createWarehouse", `mutation($in: CreateWarehouseInput!) { createWarehouse(input: $in) { id } }`,
		inputVar(func(_ *tenants, r auth.Role) map[string]any {
			return map[string]any{"name": "Depot " + string(r), "region": "south"}
		}), shopStaff},
	{"setInventory", `mutation($in: SetInventoryInput!) { setInventory(input: $in) { quantity } }`,
		inputVar(func(f *tenants, _ auth.Role) map[string]any {
			return map[string]any{"productId": model.Products.ID(f.product), "warehouseId": model.Warehouses.ID(f.warehouse), "quantity": 4}
		}), shopStaff},
}

// For every role, every root field and mutation: allowed ones succeed, the others are FORBIDDEN
// before any DynamoDB call (so a refused mutation writes nothing).
func TestRoleTableOfRootFieldsAndMutations(t *testing.T) {
	f := newTenants(t)
	covered := map[string]bool{}
	for _, op := range rootOps {
		covered[op.field] = true
		if p := policyRoles(opObject(op), op.field); !sameRoles(p, op.may) {
			t.Errorf("%s: the test expects %v, the policy says %v", op.field, op.may, p)
		}
		for _, r := range auth.Roles {
			resp := f.as(r).raw(op.query, op.vars(f, r))
			if slices.Contains(op.may, r) {
				if len(resp.Errors) != 0 || resp.status != 200 {
					t.Errorf("%s as %s: want success, got %d %s", op.field, r, resp.status, resp.body)
				}
				continue
			}
			if resp.code(t) != "FORBIDDEN" || resp.Extensions.DynamoDB.TotalCalls != 0 {
				t.Errorf("%s as %s: want FORBIDDEN without a call, got %s", op.field, r, resp.body)
			}
		}
	}
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	for _, root := range []*ast.Definition{schema.Query, schema.Mutation} {
		for _, fd := range root.Fields {
			if !strings.HasPrefix(fd.Name, "__") && !covered[fd.Name] {
				t.Errorf("%s.%s is missing from this table", root.Name, fd.Name)
			}
		}
	}
}

func opObject(op rootOp) string {
	if strings.HasPrefix(op.query, "mutation") {
		return "Mutation"
	}
	return "Query"
}

// policyRoles are the roles whose holder (with the tenant claims the role needs) may use the root
// field object.field.
func policyRoles(object, field string) []auth.Role {
	var may []auth.Role
	for _, r := range auth.Roles {
		if (auth.Principal{Roles: []auth.Role{r}, Org: "org", Customer: "customer"}).MayUse(object, field) {
			may = append(may, r)
		}
	}
	return may
}

func sameRoles(a, b []auth.Role) bool {
	if len(a) != len(b) {
		return false
	}
	for _, r := range a {
		if !slices.Contains(b, r) {
			return false
		}
	}
	return true
}
