package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"singletable/graph"
	"singletable/repository/repotest"
	"singletable/server"
)

// mutationCase is one valid run of a mutation on the sample data: its document (selecting the
// result's id) and its variables, from the sample's IDs and the IDs earlier cases created.
type mutationCase struct {
	name  string
	query string
	vars  func(s sampleValues, made map[string]string) map[string]any
}

// mutationCases holds one valid input for every mutation of the schema, in an order where each
// finds what it needs: a new mutation adds its case here (TestEveryMutationStaysWithinItsPlan
// fails for a mutation without one).
var mutationCases = []mutationCase{
	{"createOrganization", `mutation($in: CreateOrganizationInput!) { createOrganization(input: $in) { id } }`,
		func(sampleValues, map[string]string) map[string]any { return in(map[string]any{"name": "Planned org"}) }},
	{"createUser", `mutation($in: CreateUserInput!) { createUser(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"organizationId": m["createOrganization"], "name": "Planned", "email": "planned@example.com"})
		}},
	{"createTicket", `mutation($in: CreateTicketInput!) { createTicket(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"reporterId": m["createUser"], "title": "Planned", "body": "b"})
		}},
	{"updateTicket", `mutation($in: UpdateTicketInput!) { updateTicket(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"id": m["createTicket"], "status": "CLOSED"})
		}},
	{"createLocation", `mutation($in: CreateLocationInput!) { createLocation(input: $in) { id } }`,
		func(sampleValues, map[string]string) map[string]any {
			return in(map[string]any{"country": "FR", "state": "IDF", "city": "Paris", "postalCode": "75001", "address": "1 rue"})
		}},
	{"createDepartment", `mutation($in: CreateDepartmentInput!) { createDepartment(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"name": "Planned dept", "locationId": m["createLocation"]})
		}},
	{"hireEmployee", `mutation($in: HireEmployeeInput!) { hireEmployee(input: $in) { id } }`,
		func(s sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"departmentId": m["createDepartment"], "name": "Planned hire", "email": "hire@corp.example", "jobTitle": "Engineer",
				"managerId": s.ids["Employee"][0], "mentorId": s.ids["Employee"][1]})
		}},
	{"transferEmployee", `mutation($in: TransferEmployeeInput!) { transferEmployee(input: $in) { id } }`,
		func(s sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"employeeId": m["hireEmployee"], "departmentId": s.ids["Department"][0]})
		}},
	{"assignManager", `mutation($in: AssignManagerInput!) { assignManager(input: $in) { id } }`,
		func(s sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"employeeId": m["hireEmployee"], "managerId": s.ids["Employee"][2]})
		}},
	{"assignMentor", `mutation($in: AssignMentorInput!) { assignMentor(input: $in) { id } }`,
		func(s sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"employeeId": m["hireEmployee"], "mentorId": s.ids["Employee"][2]})
		}},
	{"renameDepartment", `mutation($in: RenameDepartmentInput!) { renameDepartment(input: $in) { id } }`,
		func(s sampleValues, m map[string]string) map[string]any {
			// a department with employees: the rename's copies of the name are per data
			return in(map[string]any{"id": s.ids["Department"][0], "name": "Renamed dept"})
		}},
	{"createCustomer", `mutation($in: CreateCustomerInput!) { createCustomer(input: $in) { id } }`,
		func(sampleValues, map[string]string) map[string]any {
			return in(map[string]any{"name": "Planned customer", "email": "customer@planned.example"})
		}},
	{"addMailingAddress", `mutation($in: AddMailingAddressInput!) { addMailingAddress(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"customerId": m["createCustomer"], "address": map[string]any{"label": "Home", "line1": "1 St", "city": "Town", "country": "US"}})
		}},
	{"placeOrder", `mutation($in: PlaceOrderInput!) { placeOrder(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"customerId": m["createCustomer"], "idempotencyKey": fmt.Sprint("planned-", time.Now().UnixNano()),
				"items": []any{map[string]any{"sku": "S", "productName": "P", "quantity": 1, "unitPriceCents": 100}}})
		}},
	{"updateOrderStatus", `mutation($in: UpdateOrderStatusInput!) { updateOrderStatus(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"id": m["placeOrder"], "status": "SHIPPED"})
		}},
	// The catalog: a product stocked in a warehouse, an order taking that stock, cancelled.
	{"createProduct", `mutation($in: CreateProductInput!) { createProduct(input: $in) { id } }`,
		func(sampleValues, map[string]string) map[string]any {
			return in(map[string]any{"name": "Planned product", "sku": fmt.Sprint("PLAN-", time.Now().UnixNano())})
		}},
	{"createWarehouse", `mutation($in: CreateWarehouseInput!) { createWarehouse(input: $in) { id } }`,
		func(sampleValues, map[string]string) map[string]any {
			return in(map[string]any{"name": "Planned warehouse", "region": "eu-west"})
		}},
	{"setInventory", `mutation($in: SetInventoryInput!) { setInventory(input: $in) { quantity } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"productId": m["createProduct"], "warehouseId": m["createWarehouse"], "quantity": 5})
		}},
	{"assignAccountRep", `mutation($in: AssignAccountRepInput!) { assignAccountRep(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"customerId": m["createCustomer"], "employeeId": m["hireEmployee"]})
		}},
	{"placeOrder", `mutation($in: PlaceOrderInput!) { placeOrder(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"customerId": m["createCustomer"], "idempotencyKey": fmt.Sprint("stocked-", time.Now().UnixNano()),
				"items": []any{map[string]any{"sku": "S", "productName": "P", "quantity": 2, "unitPriceCents": 100,
					"productId": m["createProduct"], "warehouseId": m["createWarehouse"]}}})
		}},
	{"cancelOrder", `mutation($in: CancelOrderInput!) { cancelOrder(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"id": m["placeOrder"]})
		}},
	{"assignWarehouse", `mutation($in: AssignWarehouseInput!) { assignWarehouse(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"employeeId": m["hireEmployee"], "warehouseId": m["createWarehouse"]})
		}},
	{"updateEmployee", `mutation($in: UpdateEmployeeInput!) { updateEmployee(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"id": m["hireEmployee"], "name": "Planned lead", "jobTitle": "Lead"})
		}},
	// Corrections, then removals of what the cases above created.
	{"updateOrganization", `mutation($in: UpdateOrganizationInput!) { updateOrganization(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"id": m["createOrganization"], "name": "Renamed org"})
		}},
	{"updateUser", `mutation($in: UpdateUserInput!) { updateUser(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"id": m["createUser"], "name": "Renamed", "email": "renamed@example.com"})
		}},
	{"updateCustomer", `mutation($in: UpdateCustomerInput!) { updateCustomer(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"id": m["createCustomer"], "name": "Renamed customer", "email": "renamed@planned.example"})
		}},
	{"updateMailingAddress", `mutation($in: UpdateMailingAddressInput!) { updateMailingAddress(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"customerId": m["createCustomer"], "label": "Home",
				"address": map[string]any{"label": "Home", "line1": "2 St", "city": "Town", "country": "US"}})
		}},
	{"removeMailingAddress", `mutation($in: RemoveMailingAddressInput!) { removeMailingAddress(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"customerId": m["createCustomer"], "label": "Home"})
		}},
	{"relocateDepartment", `mutation($in: RelocateDepartmentInput!) { relocateDepartment(input: $in) { id } }`,
		func(s sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"id": m["createDepartment"], "locationId": s.ids["Location"][0]})
		}},
	{"unassignManager", `mutation($in: UnassignManagerInput!) { unassignManager(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"employeeId": m["hireEmployee"]})
		}},
	{"unassignMentor", `mutation($in: UnassignMentorInput!) { unassignMentor(input: $in) { id } }`,
		func(_ sampleValues, m map[string]string) map[string]any {
			return in(map[string]any{"employeeId": m["hireEmployee"]})
		}},
	removal("deleteTicket", "DeleteTicketInput", "createTicket"),
	removal("deleteUser", "DeleteUserInput", "createUser"),
	removal("removeEmployee", "RemoveEmployeeInput", "hireEmployee"),
	removal("deleteDepartment", "DeleteDepartmentInput", "createDepartment"),
	removal("deleteLocation", "DeleteLocationInput", "createLocation"),
	removal("deleteCustomer", "DeleteCustomerInput", "createCustomer"),
	removal("deleteOrganization", "DeleteOrganizationInput", "createOrganization"),
}

// perDataCalls are, for the cases whose plan has calls that depend on the data (a step's calls
// "?": one per employee, one per 100 of them), the calls that data accounts for, read before the
// mutation runs: the case is held to its plan's calls plus those, so a row that depends on data is
// exercised with data and still bounded.
var perDataCalls = map[string]func(a *api, vars map[string]any) map[string]int{
	// The rename copies the name onto each employee: a Query (the plan counts one) and a
	// consistent BatchGetItem per 100 employees, an UpdateItem per employee.
	"renameDepartment": func(a *api, vars map[string]any) map[string]int {
		var out struct {
			Department struct{ Employees struct{ Edges []struct{} } }
		}
		a.ok(`query($id: ID!) { department(id: $id) { employees(first: 100) { edges { cursor } } } }`,
			map[string]any{"id": vars["in"].(map[string]any)["id"]}, &out)
		n := len(out.Department.Employees.Edges)
		if n == 0 || n == 100 {
			panic(fmt.Sprintf("renameDepartment's case needs a department with 1 to 99 employees, not %d", n))
		}
		return map[string]int{"BatchGetItem": 1, "UpdateItem": n} // the Query is the plan's one
	},
}

// withCalls is p with more calls allowed of each operation of extra.
func withCalls(p *plan, extra map[string]int) *plan {
	out := *p
	out.MaxCalls = map[string]int{}
	for op, n := range p.MaxCalls {
		out.MaxCalls[op] = n
	}
	for op, n := range extra {
		out.MaxCalls[op] += n
	}
	return &out
}

// removal is the case of a delete mutation removing what the case named made created.
func removal(name, inputType, made string) mutationCase {
	return mutationCase{name, fmt.Sprintf(`mutation($in: %s!) { %s(input: $in) { deletedId } }`, inputType, name),
		func(_ sampleValues, m map[string]string) map[string]any { return in(map[string]any{"id": m[made]}) }}
}

func in(input map[string]any) map[string]any { return map[string]any{"in": input} }

// Every mutation of the schema, run as admin with a valid input on the sample data, makes no more
// calls of any operation than its explain plans (plus what perDataCalls counts for its data), takes
// no more rounds, and its plan is the write's own
// (repository.WritePlan, declared beside the write).
func TestEveryMutationStaysWithinItsPlan(t *testing.T) {
	// Paced: a write's calls are placed in rounds by their times, and calls it makes at once
	// then overlap whatever the machine's load.
	a := newAPI(t, server.Config{}, repotest.WithPace(writePace()))
	if _, err := a.repo.Seed(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := sampleOf(t, a)
	covered := map[string]bool{}
	made := map[string]string{}
	for _, c := range mutationCases {
		covered[c.name] = true
		vars := c.vars(s, made)
		e := a.explain(c.query, vars)
		if e.plan == nil || len(e.errors) > 0 {
			t.Fatalf("%s: explain %+v", c.name, e.errors)
		}
		bound := e.plan
		if data := perDataCalls[c.name]; data != nil {
			bound = withCalls(e.plan, data(a, vars))
		}
		r := a.query(c.query, vars)
		if len(r.Errors) > 0 {
			t.Fatalf("%s with %v: %+v", c.name, vars, r.Errors)
		}
		if over := within(bound, r.Extensions.DynamoDB.Calls, 0); over != "" {
			t.Errorf("%s called %v, over its plan: %s\n%s", c.name, r.Extensions.DynamoDB.Calls, over, planText(e.plan))
		}
		if rounds := r.Extensions.DynamoDB.Rounds; rounds > e.plan.MaxRounds || rounds == 0 {
			t.Errorf("%s took %d rounds, its plan %d\n%s", c.name, rounds, e.plan.MaxRounds, planText(e.plan))
		}
		var data map[string]struct{ ID string }
		if err := json.Unmarshal(r.Data, &data); err != nil {
			t.Fatal(err)
		}
		made[c.name] = data[c.name].ID
	}
	for _, f := range graph.NewExecutableSchema(graph.Config{}).Schema().Mutation.Fields {
		if !covered[f.Name] {
			t.Errorf("mutation %s has no case in mutationCases: add a valid input for it", f.Name)
		}
	}
}
