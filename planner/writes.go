package planner

import (
	"github.com/99designs/gqlgen/graphql"

	"singletable/repository"
)

// The operations the API writes with.
const (
	TransactWriteItems Operation = "TransactWriteItems"
	UpdateItem         Operation = "UpdateItem"
)

// A Write is one call of a mutation, or a call it repeats, as the repository makes it: a write,
// or a read a write paths needs (a strongly consistent BatchGetItem of what a transaction then
// conditions on, a Query).
type Write struct {
	Operation Operation
	// Calls is the most calls; with PerData, the least, more depending on the data.
	Calls   int
	PerData bool
	// What says what the call reads or writes (a plan step's keyCondition).
	What string
}

// A Mutation is what one mutation field does to the table: its calls, one after another, made up
// to Attempts times (a write that re-reads and retries when a department it copies is renamed
// under it), and the fields of its result that what it wrote answers (Returns: order items,
// relation items), which cost nothing (relations: only their targets are read).
type Mutation struct {
	Writes   []Write
	Attempts int
	Returns  []string
}

// Mutations is every mutation the planner knows: what an explain of a mutation plans before the
// reads of its result. The repository's write functions are the source (repository/*_write*.go);
// a test holds the table against the schema.
var Mutations = map[string]Mutation{
	"createOrganization": {Writes: []Write{put("Put ORG#<o> METADATA#<o> if absent")}},
	"createUser":         {Writes: []Write{put("Put USER#<u> and its email guard if absent; check ORG#<o> exists")}},
	"createTicket":       {Writes: []Write{put("Put TICKET#<t> if absent; check the reporter ORG#<o> USER#<u> exists")}},
	"updateTicket": {Writes: []Write{
		{Operation: BatchGetItem, Calls: 1, What: "PK = SK = TICKET#<t>, for a caller whose scope the ticket's ID does not tell"},
		{Operation: UpdateItem, Calls: 1, What: "PK = SK = TICKET#<t> if it exists"},
	}},
	"createLocation":   {Writes: []Write{put("Put COUNTRY#<c> <state>#<city>#<postal>#<l> if absent")}},
	"createDepartment": {Writes: []Write{put("Put DEPT#<d> if absent; check the location exists")}},
	"renameDepartment": {Writes: []Write{
		{Operation: BatchGetItem, Calls: 1, What: "PK = SK = DEPT#<d>, consistent"},
		{Operation: UpdateItem, Calls: 1, What: "PK = SK = DEPT#<d> if nameVersion is as read"},
		{Operation: Query, Calls: 1, PerData: true, What: "GSI1PK = DEPT#<d>#REL#DEPARTMENT, one per 100 employees"},
		{Operation: BatchGetItem, PerData: true, What: "PK = SK = EMP#<e>, consistent, one per 100 employees"},
		{Operation: UpdateItem, PerData: true, What: "PK = SK = EMP#<e> if its copy of the name is older, one per employee"},
		{Operation: UpdateItem, Calls: 1, What: "PK = SK = DEPT#<d>: propagatedVersion"},
	}},
	"hireEmployee": {Attempts: repository.MaxDepartmentAttempts, Returns: []string{"department", "manager", "mentor"}, Writes: []Write{
		{Operation: BatchGetItem, Calls: 1, What: "PK = SK = DEPT#<d> and the manager's and mentor's EMP#<e>, consistent"},
		put("Put EMP#<e> and its REL# items if absent; check the department's name and the manager and mentor"),
	}},
	"transferEmployee": {Attempts: repository.MaxDepartmentAttempts, Returns: []string{"department"}, Writes: []Write{
		{Operation: BatchGetItem, Calls: 1, What: "PK = SK = EMP#<e>, PK = EMP#<e> SK = REL#DEPARTMENT, PK = SK = DEPT#<d>, consistent"},
		put("Put REL#DEPARTMENT and update EMP#<e> if the membership is as read; check the department's name"),
	}},
	"assignManager": {Returns: []string{"manager"}, Writes: []Write{
		{Operation: BatchGetItem, Calls: 1, What: "PK = SK = EMP#<e> and EMP#<m>, PK = EMP#<m> SK = REL#MANAGER, consistent"},
		{Operation: BatchGetItem, Calls: repository.MaxManagementChain - 1, What: "PK = EMP#<m> SK = REL#MANAGER up the manager's chain, consistent, one per level"},
		put("Put REL#MANAGER; check both employees and every link of the chain as read"),
	}},
	"assignMentor": {Returns: []string{"mentor"}, Writes: []Write{
		{Operation: BatchGetItem, Calls: 1, What: "PK = SK = EMP#<e> and EMP#<m>, consistent"},
		put("Put REL#MENTOR; check both employees exist"),
	}},
	"createCustomer":    {Writes: []Write{put("Put CUST#<c> PROFILE and its email guard if absent")}},
	"addMailingAddress": {Writes: []Write{{Operation: UpdateItem, Calls: 1, What: "PK = CUST#<c>, SK = PROFILE if it has fewer than 20 addresses"}}},
	"placeOrder": {Returns: []string{"items", "customer"}, Writes: []Write{
		{Operation: BatchGetItem, Calls: 1, What: "PK = CUST#<c>, SK = PROFILE, consistent: its account rep"},
		put("Put ORDER#<o>, its lines and the idempotency guard if absent; count it on the customer if its account rep is as read, and on the rep's REPSALES#<yyyy-mm>; take each stocked line from PRODUCT#<p> INV#<w> if it holds enough, and from the product's totalInventory"),
		{Operation: Query, Calls: 2, What: "the idempotency guard, then PK = CUST#<c> AND begins_with(SK, ORDER#<o>), consistent: only for a key used before"},
	}},
	"updateOrderStatus": {Writes: []Write{{Operation: UpdateItem, Calls: 1, What: "PK = CUST#<c>, SK = ORDER#<o> if its status may become the new one"}}},
	"cancelOrder": {Writes: []Write{
		{Operation: BatchGetItem, Calls: 1, What: "PK = CUST#<c>, SK = ORDER#<o>, consistent"},
		{Operation: BatchGetItem, Calls: 1, What: "PK = CUST#<c>, SK = ORDER#<o>#ITEM#<nnn>, consistent: only for an order whose lines took stock"},
		put("Update ORDER#<o> to CANCELLED if OPEN and the customer's counters; give each stocked line back to PRODUCT#<p> INV#<w> and the product's totalInventory"),
	}},
	"updateEmployee": {Writes: []Write{
		{Operation: BatchGetItem, Calls: 1, What: "PK = SK = EMP#<e>, consistent"},
		put("Update EMP#<e> and its GSI1PK (JOBTITLE#<title>) if its job title is as read; Put EMP#<e> JH#<id>, its old job, when the title changes"),
	}},
	"createProduct":   {Writes: []Write{put("Put PRODUCT#<p> and its sku guard if absent")}},
	"createWarehouse": {Writes: []Write{put("Put WAREHOUSE#<w> if absent")}},
	"setInventory": {Attempts: repository.SetInventoryAttempts, Writes: []Write{
		{Operation: BatchGetItem, Calls: 1, What: "PK = PRODUCT#<p> SK = INV#<w>, PK = SK = PRODUCT#<p>, PK = SK = WAREHOUSE#<w>, consistent"},
		put("Put PRODUCT#<p> INV#<w> if its quantity is as read; ADD the difference to the product's totalInventory; check the warehouse exists"),
	}},
}

// put is a write of one TransactWriteItems.
func put(what string) Write { return Write{Operation: TransactWriteItems, Calls: 1, What: what} }

// attempts is how often m's calls may be made.
func (m Mutation) attempts() int { return max(m.Attempts, 1) }

// writes records mutation field f's calls, made after round at, one after another (each call a
// round), and returns the round of the last.
func (w *walker) writes(f graphql.CollectedField, m Mutation, at int) int {
	path := w.pathOf("", f)
	round, per := at+1, 0
	for _, s := range m.Writes {
		calls := s.Calls * m.attempts()
		w.count(s.Operation, calls, round, false)
		if s.PerData {
			w.out.Bounded = false
		}
		if w.record {
			var most *int
			if !s.PerData {
				most = &calls
			}
			w.out.Steps = append(w.out.Steps, Step{Path: path, Operation: s.Operation, KeyCondition: s.What, Round: round, MaxCalls: most})
		}
		round += max(s.Calls, 1)
		per += max(s.Calls, 1)
	}
	end := at + per*m.attempts()
	w.out.MaxRounds = max(w.out.MaxRounds, end)
	return end
}
