package auth

// The authorization policy, in one place (deny by default):
//
//   - rootPolicy: which roles may use each root field, mutation and subscription. A field missing
//     here is refused for everyone (FORBIDDEN), and a test fails for every root field of the
//     schema that has no entry.
//   - Principal.Sees: whether a principal may see an object of a Scope (an organization's, a
//     customer's, HR's). Each node descriptor (graph/model) says which scope its objects have,
//     from the ID's key parts where they carry the tenant (so the check costs no read), or from
//     the item where they do not (a ticket's ID lacks its organization).
//
// Objects outside a caller's scope are NOT_FOUND, as if they did not exist; nested fields never
// leave their parent's scope (an organization's users, a user's tickets, a customer's orders all
// share its tenant), so scope is checked where IDs enter: node, nodes, typed lookups and the IDs
// inside mutation inputs. A subscription checks its arguments the same way, and every event it
// would deliver against the scope of the changed object itself (resolvers/subscriptions.go).

var (
	saasReaders     = []Role{RoleAdmin, RoleOrgAdmin, RoleOrgMember}
	saasAdmins      = []Role{RoleAdmin, RoleOrgAdmin}
	hrStaff         = []Role{RoleAdmin, RoleHR}
	commerceReaders = []Role{RoleAdmin, RoleSales, RoleCustomer}
	commerceStaff   = []Role{RoleAdmin, RoleSales}
	// warehouseReaders see warehouses: sales for their stock, HR for their staff.
	warehouseReaders = []Role{RoleAdmin, RoleSales, RoleHR}
	// repReaders see more of an employee than its name: HR, and sales (account reps).
	repReaders = []Role{RoleAdmin, RoleSales, RoleHR}
)

// fieldPolicy narrows fields below the root further than the scope of the object they hang
// from, by object type and field: a product is a customer's to see, its stock and the order lines
// of other customers are not; a customer's account rep is an employee whose name alone the
// customer sees, and sales see a rep's sales side, HR its HR side. A field missing here is seen
// by whoever sees its object; one listed here is FORBIDDEN to the other roles (before its
// resolver runs: the server's field guard asks MayRead).
var fieldPolicy = map[fieldRef][]Role{
	{"Product", "totalInventory"}: commerceStaff,
	{"Product", "inventory"}:      commerceStaff,
	// A customer reads no warehouse, by any path: not warehouse(s) (rootPolicy), not a line's
	// warehouse (here), not node (its scope).
	{"OrderItem", "warehouse"}: commerceStaff,
	// A customer sees of its account rep the id (clients' caches key on it) and the name.
	{"Employee", "id"}:             Roles,
	{"Employee", "name"}:           Roles,
	{"Product", "orderItems"}:      commerceStaff,
	{"Employee", "accounts"}:       commerceStaff,
	{"Employee", "accountOrders"}:  commerceStaff,
	{"Employee", "email"}:          repReaders,
	{"Employee", "jobTitle"}:       repReaders,
	{"Employee", "hiredAt"}:        repReaders,
	{"Employee", "departmentName"}: repReaders,
	{"Employee", "department"}:     hrStaff,
	{"Employee", "manager"}:        hrStaff,
	{"Employee", "directReports"}:  hrStaff,
	{"Employee", "mentor"}:         hrStaff,
	{"Employee", "mentees"}:        hrStaff,
	{"Employee", "jobHistory"}:     hrStaff,
	{"Employee", "warehouse"}:      hrStaff,
	{"Warehouse", "employees"}:     hrStaff,
}

// typePolicy is the policy of every field of a type that fieldPolicy does not list: an
// employee's fields are HR's and sales' unless listed, so that a field added to Employee is never
// a customer's by default.
var typePolicy = map[string][]Role{
	"Employee": repReaders,
}

// fieldRef names a field of an object type.
type fieldRef struct{ object, field string }

// narrowedTypes are the object types fieldPolicy or typePolicy narrows a field of, so that the
// field guard asks nothing for the others.
var narrowedTypes = func() map[string]bool {
	m := map[string]bool{}
	for f := range fieldPolicy {
		m[f.object] = true
	}
	for t := range typePolicy {
		m[t] = true
	}
	return m
}()

// Narrows reports whether fieldPolicy narrows some field of object type object.
func Narrows(object string) bool { return narrowedTypes[object] }

// MayRead reports whether p may read field field of an object of type object that it sees:
// true unless fieldPolicy lists the field without one of p's roles.
func (p Principal) MayRead(object, field string) bool {
	roles, narrowed := fieldPolicy[fieldRef{object, field}]
	if !narrowed {
		roles, narrowed = typePolicy[object]
	}
	if !narrowed || field == "__typename" {
		return true
	}
	for _, r := range roles {
		if p.Has(r) {
			return true
		}
	}
	return false
}

// rootPolicy maps "Query.<field>", "Mutation.<field>" and "Subscription.<field>" to the roles that
// may use it.
var rootPolicy = map[string][]Role{
	// Relay lookups: any role; each ID is checked against the caller's scope.
	"Query.node":  Roles,
	"Query.nodes": Roles,

	// SaaS. organizations is narrowed to an org role's own organization.
	"Query.organization":          saasReaders,
	"Query.organizations":         saasReaders,
	"Query.user":                  saasReaders,
	"Query.ticket":                saasReaders,
	"Mutation.createOrganization": {RoleAdmin},
	"Mutation.createUser":         {RoleAdmin, RoleOrgAdmin},
	"Mutation.createTicket":       saasReaders,
	"Mutation.updateTicket":       saasReaders,
	// Corrections and removals: an org-admin in its organization; the organization itself is
	// removed by an admin only.
	"Mutation.updateOrganization": saasAdmins,
	"Mutation.updateUser":         saasAdmins,
	"Mutation.deleteTicket":       saasAdmins,
	"Mutation.deleteUser":         saasAdmins,
	"Mutation.deleteOrganization": {RoleAdmin},

	// HR: one scope, all of it for hr.
	"Query.department":            hrStaff,
	"Query.employee":              hrStaff,
	"Query.departments":           hrStaff,
	"Query.employeesByJobTitle":   hrStaff,
	"Query.employeesHiredSince":   hrStaff,
	"Query.employeesByName":       hrStaff,
	"Query.locations":             hrStaff,
	"Mutation.createLocation":     hrStaff,
	"Mutation.createDepartment":   hrStaff,
	"Mutation.renameDepartment":   hrStaff,
	"Mutation.hireEmployee":       hrStaff,
	"Mutation.transferEmployee":   hrStaff,
	"Mutation.assignManager":      hrStaff,
	"Mutation.assignMentor":       hrStaff,
	"Mutation.relocateDepartment": hrStaff,
	"Mutation.unassignManager":    hrStaff,
	"Mutation.unassignMentor":     hrStaff,
	"Mutation.removeEmployee":     hrStaff,
	"Mutation.deleteDepartment":   hrStaff,
	"Mutation.deleteLocation":     hrStaff,
	"Mutation.updateEmployee":     hrStaff,
	"Mutation.assignWarehouse":    hrStaff,

	// Commerce. customers is narrowed to a customer's own record.
	"Query.customer":             commerceReaders,
	"Query.customers":            commerceReaders,
	"Query.order":                commerceReaders,
	"Query.ordersByStatus":       commerceStaff,
	"Mutation.createCustomer":    commerceStaff,
	"Mutation.addMailingAddress": commerceReaders, // a customer: for itself only
	"Mutation.placeOrder":        commerceReaders, // a customer: for itself only
	"Mutation.updateOrderStatus": commerceStaff,
	// A customer corrects its own record and addresses; only staff erase a customer.
	"Mutation.updateCustomer":       commerceReaders, // a customer: for itself only
	"Mutation.updateMailingAddress": commerceReaders, // a customer: for itself only
	"Mutation.removeMailingAddress": commerceReaders, // a customer: for itself only
	"Mutation.deleteCustomer":       commerceStaff,
	"Mutation.cancelOrder":          commerceReaders, // a customer: its own orders only

	// Catalog: products for every commerce role (customers order them), their stock and
	// warehouses for sales; warehouses for HR too.
	"Query.product":            commerceReaders,
	"Query.products":           commerceReaders,
	"Query.warehouse":          warehouseReaders,
	"Query.warehouses":         warehouseReaders,
	"Mutation.createProduct":   commerceStaff,
	"Mutation.createWarehouse": commerceStaff,
	"Mutation.setInventory":    commerceStaff,

	// Account reps: sales. The ranking names employees, whose name alone sales may not need, but
	// whose sales side it is.
	"Query.topAccountReps":      commerceStaff,
	"Mutation.assignAccountRep": commerceStaff,

	// Subscriptions: the readers of each domain; a customer's orderChanged is narrowed to itself.
	"Subscription.ticketChanged":    saasReaders,
	"Subscription.orderChanged":     commerceReaders,
	"Subscription.employeeChanged":  hrStaff,
	"Subscription.inventoryChanged": commerceStaff,
	// Delta sync: a pull of the change log is for whoever may subscribe to the same changes.
	"Query.ticketChanges":    saasReaders,
	"Query.orderChanges":     commerceReaders,
	"Query.employeeChanges":  hrStaff,
	"Query.inventoryChanges": commerceStaff,
}

// MayUse reports whether p may use the root field object.field: false for a field without a
// policy, and for a principal none of whose roles the policy lists.
func (p Principal) MayUse(object, field string) bool {
	for _, r := range rootPolicy[object+"."+field] {
		if p.Has(r) {
			return true
		}
	}
	return false
}
