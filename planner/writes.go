package planner

import (
	"github.com/99designs/gqlgen/graphql"

	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// The operations the API writes with.
const (
	TransactWriteItems Operation = "TransactWriteItems"
	UpdateItem         Operation = "UpdateItem"
	// BatchWriteItem removes what one transaction cannot hold: the rest of a long ticket history
	// (repository.DeleteTicketPlan, DeleteUserPlan), an employee's earlier jobs
	// (RemoveEmployeePlan).
	BatchWriteItem Operation = "BatchWriteItem"
)

// A Mutation is what one mutation field does to the table: the plan of the repository write it
// runs (repository.WritePlan, declared beside the write: every write that retries loops over its
// plan's Tries, except deleteCustomer, whose loop and plan name the same bound), and
// the fields of its result that what it wrote answers (Returns: order items, relation items),
// which cost nothing (relations: only their targets are read).
type Mutation struct {
	Write   repository.WritePlan
	Returns []string
}

// Mutations is every mutation the planner knows: what an explain of a mutation plans before the
// reads of its result. A new mutation is one entry naming its write's plan; a test runs every
// mutation of the schema and holds what it called to its plan.
var Mutations = map[string]Mutation{
	"createOrganization": {Write: saas.CreateOrganizationPlan},
	"createUser":         {Write: saas.CreateUserPlan},
	"createTicket":       {Write: saas.CreateTicketPlan},
	"updateTicket":       {Write: saas.UpdateTicketPlan},
	"createLocation":     {Write: hr.CreateLocationPlan},
	"createDepartment":   {Write: hr.CreateDepartmentPlan},
	"renameDepartment":   {Write: hr.RenameDepartmentPlan},
	"hireEmployee":       {Write: hr.HireEmployeePlan, Returns: []string{"department", "manager", "mentor"}},
	"transferEmployee":   {Write: hr.TransferEmployeePlan, Returns: []string{"department"}},
	"assignManager":      {Write: hr.AssignManagerPlan, Returns: []string{"manager"}},
	"assignMentor":       {Write: hr.AssignMentorPlan, Returns: []string{"mentor"}},
	"assignWarehouse":    {Write: hr.AssignWarehousePlan},
	"createCustomer":     {Write: commerce.CreateCustomerPlan},
	"addMailingAddress":  {Write: commerce.AddMailingAddressPlan},
	"placeOrder":         {Write: commerce.PlaceOrderPlan, Returns: []string{"items", "customer"}},
	"updateOrderStatus":  {Write: commerce.UpdateOrderStatusPlan},
	// Corrections and removals.
	"updateOrganization":   {Write: saas.UpdateOrganizationPlan},
	"updateUser":           {Write: saas.UpdateUserPlan},
	"deleteTicket":         {Write: saas.DeleteTicketPlan},
	"deleteUser":           {Write: saas.DeleteUserPlan},
	"deleteOrganization":   {Write: saas.DeleteOrganizationPlan},
	"relocateDepartment":   {Write: hr.RelocateDepartmentPlan},
	"unassignManager":      {Write: hr.UnassignManagerPlan},
	"unassignMentor":       {Write: hr.UnassignMentorPlan},
	"removeEmployee":       {Write: hr.RemoveEmployeePlan},
	"deleteDepartment":     {Write: hr.DeleteDepartmentPlan},
	"deleteLocation":       {Write: hr.DeleteLocationPlan},
	"updateCustomer":       {Write: commerce.UpdateCustomerPlan},
	"updateMailingAddress": {Write: commerce.UpdateMailingAddressPlan},
	"removeMailingAddress": {Write: commerce.RemoveMailingAddressPlan},
	"deleteCustomer":       {Write: commerce.DeleteCustomerPlan},
	// The catalog, account reps and an employee's corrections.
	"cancelOrder":      {Write: commerce.CancelOrderPlan},
	"updateEmployee":   {Write: hr.UpdateEmployeePlan},
	"createProduct":    {Write: catalog.CreateProductPlan},
	"createWarehouse":  {Write: catalog.CreateWarehousePlan},
	"setInventory":     {Write: catalog.SetInventoryPlan},
	"assignAccountRep": {Write: commerce.AssignAccountRepPlan},
}

// writes records mutation field f's calls, made after round at, one after another (each call a
// round), and returns the round of the last.
func (w *walker) writes(f graphql.CollectedField, m Mutation, at int) int {
	path := w.pathOf("", f)
	round, per := at+1, 0
	tries := m.Write.Tries()
	for _, s := range m.Write.Calls {
		op := Operation(s.Operation)
		calls := s.Calls * tries
		w.count(op, calls, round, false)
		if s.PerData {
			w.out.Bounded = false
		}
		if w.record {
			var most *int
			if !s.PerData {
				most = &calls
			}
			w.out.Steps = append(w.out.Steps, Step{Path: path, Operation: op, KeyCondition: s.What, Round: round, MaxCalls: most})
		}
		round += max(s.Calls, 1)
		per += max(s.Calls, 1)
	}
	end := at + per*tries
	w.out.MaxRounds = max(w.out.MaxRounds, end)
	return end
}
