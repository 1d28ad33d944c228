package server_test

import (
	"strings"
	"testing"

	"singletable/auth"
)

// mutationWithInput is an operation calling mutation m with the variable $in as its input.
func mutationWithInput(m string) string {
	return `mutation($in: ` + strings.ToUpper(m[:1]) + m[1:] + `Input!) { ` + m + `(input: $in) { id } }`
}

// Every global ID of a mutation input is decoded and checked before the mutation calls the
// repository: a malformed ID, or the ID of another type, is BAD_USER_INPUT naming its field, and
// no DynamoDB call is made at all.
func TestMutationIDsAreDecodedBeforeAnyCall(t *testing.T) {
	f := newTenants(t)
	address := map[string]any{"label": "Work", "line1": "1 Main St", "city": "X", "country": "US"}
	inputs := []struct {
		mutation string
		in       map[string]any
		ids      []string // the ID fields of in
	}{
		{"createUser", map[string]any{"organizationId": orgID(f.orgA), "name": "N", "email": "n@x.example"}, []string{"organizationId"}},
		{"createTicket", map[string]any{"reporterId": userID(f.userA), "title": "t", "body": "b"}, []string{"reporterId"}},
		{"updateTicket", map[string]any{"id": ticketID(f.ticketA), "title": "t"}, []string{"id"}},
		{"createDepartment", map[string]any{"name": "D", "locationId": locationID(f.loc)}, []string{"locationId"}},
		{"renameDepartment", map[string]any{"id": departmentID(f.dept), "name": "D"}, []string{"id"}},
		{"hireEmployee", map[string]any{"departmentId": departmentID(f.dept), "name": "N", "email": "n@x.example", "jobTitle": "J",
			"managerId": employeeID(f.emp1), "mentorId": employeeID(f.emp2)}, []string{"departmentId", "managerId", "mentorId"}},
		{"transferEmployee", map[string]any{"employeeId": employeeID(f.emp1), "departmentId": departmentID(f.dept)}, []string{"employeeId", "departmentId"}},
		{"assignManager", map[string]any{"employeeId": employeeID(f.emp1), "managerId": employeeID(f.emp2)}, []string{"employeeId", "managerId"}},
		{"assignMentor", map[string]any{"employeeId": employeeID(f.emp1), "mentorId": employeeID(f.emp2)}, []string{"employeeId", "mentorId"}},
		{"addMailingAddress", map[string]any{"customerId": customerID(f.custA), "address": address}, []string{"customerId"}},
		{"placeOrder", map[string]any{"customerId": customerID(f.custA), "idempotencyKey": "k",
			"items": []map[string]any{{"sku": "S", "productName": "P", "quantity": 1, "unitPriceCents": 1}}}, []string{"customerId"}},
		{"updateOrderStatus", map[string]any{"id": orderID(f.orderA), "status": "SHIPPED"}, []string{"id"}},
	}
	for _, c := range inputs {
		for _, field := range c.ids {
			// An Organization ID is of the wrong type everywhere but in organizationId.
			wrongType := orgID(f.orgA)
			if field == "organizationId" {
				wrongType = customerID(f.custA)
			}
			for _, id := range []string{"%%%", wrongType} {
				in := map[string]any{}
				for k, v := range c.in {
					in[k] = v
				}
				in[field] = id
				r := f.a.query(mutationWithInput(c.mutation), map[string]any{"in": in})
				if code := r.code(t); code != "BAD_USER_INPUT" || r.Errors[0].Extensions["field"] != field || r.Extensions.DynamoDB.TotalCalls != 0 {
					t.Errorf("%s with %s %q: code %s, field %v, %d DynamoDB calls; want BAD_USER_INPUT naming %s and none",
						c.mutation, field, id, code, r.Errors[0].Extensions["field"], r.Extensions.DynamoDB.TotalCalls, field)
				}
			}
		}
	}
}

// An ID outside the caller's scope stops a mutation before it writes: NOT_FOUND, and no DynamoDB
// call, since every ID tells its tenant.
func TestMutationIDsOutsideTheScopeCallNothing(t *testing.T) {
	f := newTenants(t)
	address := map[string]any{"label": "Work", "line1": "1 Main St", "city": "X", "country": "US"}
	cases := []struct {
		role     auth.Role
		mutation string
		in       map[string]any
		reads    int
	}{
		{auth.RoleOrgAdmin, "createUser", map[string]any{"organizationId": orgID(f.orgB), "name": "N", "email": "n@x.example"}, 0},
		{auth.RoleOrgMember, "createTicket", map[string]any{"reporterId": userID(f.userB), "title": "t", "body": "b"}, 0},
		{auth.RoleOrgMember, "updateTicket", map[string]any{"id": ticketID(f.ticketB), "title": "t"}, 0},
		{auth.RoleCustomer, "addMailingAddress", map[string]any{"customerId": customerID(f.custB), "address": address}, 0},
		{auth.RoleCustomer, "placeOrder", map[string]any{"customerId": customerID(f.custB), "idempotencyKey": "k",
			"items": []map[string]any{{"sku": "S", "productName": "P", "quantity": 1, "unitPriceCents": 1}}}, 0},
	}
	for _, c := range cases {
		r := f.as(c.role).query(mutationWithInput(c.mutation), map[string]any{"in": c.in})
		if code := r.code(t); code != "NOT_FOUND" || r.Extensions.DynamoDB.TotalCalls != c.reads || r.calls("BatchGetItem") != c.reads {
			t.Errorf("%s %s: code %s, DynamoDB calls %v; want NOT_FOUND and %d BatchGetItem only", c.role, c.mutation, code, r.Extensions.DynamoDB.Calls, c.reads)
		}
	}
}
