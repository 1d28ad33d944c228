package server_test

import (
	"context"
	"testing"

	"singletable/auth"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// The corrections and removals in the role table (TestRoleTableOfRootFieldsAndMutations): each
// removal gets an object of its own per call, made through the repository in the caller's scope,
// so every allowed role removes something.
func init() { rootOps = append(rootOps, lifecycleOps...) }

var saasAdmins = []auth.Role{auth.RoleAdmin, auth.RoleOrgAdmin}

// made returns what a repository call made, or ends the test on its error.
func made[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func idInput(id func(f *tenants, r auth.Role) string) func(*tenants, auth.Role) map[string]any {
	return inputVar(func(f *tenants, r auth.Role) map[string]any { return map[string]any{"id": id(f, r)} })
}

var lifecycleOps = []rootOp{
	{"updateOrganization", `mutation($in: UpdateOrganizationInput!) { updateOrganization(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			return map[string]any{"id": orgID(f.orgA), "name": "Alpha by " + string(r)}
		}), saasAdmins},
	{"updateUser", `mutation($in: UpdateUserInput!) { updateUser(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			return map[string]any{"id": userID(f.userA), "name": "Ann by " + string(r)}
		}), saasAdmins},
	{"deleteTicket", `mutation($in: DeleteTicketInput!) { deleteTicket(input: $in) { deletedId } }`,
		idInput(func(f *tenants, _ auth.Role) string {
			return ticketID(made[*saas.Ticket](f.a.t)(f.a.repo.CreateTicket(context.Background(), f.orgA.ID, f.userA.ID, "to remove", "b")))
		}), saasAdmins},
	{"deleteUser", `mutation($in: DeleteUserInput!) { deleteUser(input: $in) { deletedId } }`,
		idInput(func(f *tenants, r auth.Role) string {
			return userID(made[*saas.User](f.a.t)(f.a.repo.CreateUser(context.Background(), f.orgA.ID, "Gone", "gone-"+string(r)+"@alpha.example")))
		}), saasAdmins},
	{"deleteOrganization", `mutation($in: DeleteOrganizationInput!) { deleteOrganization(input: $in) { deletedId } }`,
		idInput(func(f *tenants, r auth.Role) string {
			return orgID(made[*saas.Organization](f.a.t)(f.a.repo.CreateOrganization(context.Background(), "Gone "+string(r))))
		}), []auth.Role{auth.RoleAdmin}},
	{"relocateDepartment", `mutation($in: RelocateDepartmentInput!) { relocateDepartment(input: $in) { id } }`,
		inputVar(func(f *tenants, _ auth.Role) map[string]any {
			return map[string]any{"id": departmentID(f.dept), "locationId": locationID(f.loc)}
		}), hrRoles},
	{"unassignManager", `mutation($in: UnassignManagerInput!) { unassignManager(input: $in) { id } }`,
		inputVar(func(f *tenants, _ auth.Role) map[string]any { return map[string]any{"employeeId": employeeID(f.emp1)} }), hrRoles},
	{"unassignMentor", `mutation($in: UnassignMentorInput!) { unassignMentor(input: $in) { id } }`,
		inputVar(func(f *tenants, _ auth.Role) map[string]any { return map[string]any{"employeeId": employeeID(f.emp1)} }), hrRoles},
	{"removeEmployee", `mutation($in: RemoveEmployeeInput!) { removeEmployee(input: $in) { deletedId } }`,
		idInput(func(f *tenants, r auth.Role) string {
			e, _, err := f.a.repo.HireEmployee(context.Background(), hr.HireInput{DepartmentID: f.dept.ID, Name: "Leaver", Email: "leaver-" + string(r) + "@corp.example", JobTitle: "Engineer"})
			return employeeID(made[*hr.Employee](f.a.t)(e, err))
		}), hrRoles},
	{"deleteDepartment", `mutation($in: DeleteDepartmentInput!) { deleteDepartment(input: $in) { deletedId } }`,
		idInput(func(f *tenants, r auth.Role) string {
			return departmentID(made[*hr.Department](f.a.t)(f.a.repo.CreateDepartment(context.Background(), "Empty "+string(r), f.loc.Ref())))
		}), hrRoles},
	{"deleteLocation", `mutation($in: DeleteLocationInput!) { deleteLocation(input: $in) { deletedId } }`,
		idInput(func(f *tenants, r auth.Role) string {
			return locationID(made[*hr.Location](f.a.t)(f.a.repo.CreateLocation(context.Background(), hr.LocationInput{Country: "US", State: "NV", City: "Reno", PostalCode: "89501", Address: string(r)})))
		}), hrRoles},
	{"updateCustomer", `mutation($in: UpdateCustomerInput!) { updateCustomer(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			return map[string]any{"id": customerID(f.custA), "name": "Dan by " + string(r)}
		}), shopRoles},
	{"updateMailingAddress", `mutation($in: UpdateMailingAddressInput!) { updateMailingAddress(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			label := "fix-" + string(r)
			made[*commerce.Customer](f.a.t)(f.a.repo.AddMailingAddress(context.Background(), f.custA.ID, commerce.MailingAddress{Label: label, Line1: "1", City: "X", Country: "US"}))
			return map[string]any{"customerId": customerID(f.custA), "label": label,
				"address": map[string]any{"label": label, "line1": "2 Fixed St", "city": "X", "country": "US"}}
		}), shopRoles},
	{"removeMailingAddress", `mutation($in: RemoveMailingAddressInput!) { removeMailingAddress(input: $in) { id } }`,
		inputVar(func(f *tenants, r auth.Role) map[string]any {
			label := "gone-" + string(r)
			made[*commerce.Customer](f.a.t)(f.a.repo.AddMailingAddress(context.Background(), f.custA.ID, commerce.MailingAddress{Label: label, Line1: "1", City: "X", Country: "US"}))
			return map[string]any{"customerId": customerID(f.custA), "label": label}
		}), shopRoles},
	{"deleteCustomer", `mutation($in: DeleteCustomerInput!) { deleteCustomer(input: $in) { deletedId } }`,
		idInput(func(f *tenants, r auth.Role) string {
			return customerID(made[*commerce.Customer](f.a.t)(f.a.repo.CreateCustomer(context.Background(), "Erased", "erased-"+string(r)+"@shop.example", nil)))
		}), shopStaff},
}
