package repository

// What each write does to the table, declared once beside the write (a <Write>Plan value in the
// same file): the calls it makes, one after another, and how often it may make them all again.
// A write that tries again loops on its plan's Tries(); a removal that sweeps at once (a user, a
// customer, an employee) sweeps in at most MaxSweepRounds rounds, the bound the sweeper keeps too,
// which its plan's Attempts states. Explain plans a mutation from the plan of the write it runs
// (planner.Mutations), so the two cannot drift apart; a test runs every mutation of the schema and
// holds what it called to what its plan says.

// A WriteCall is one call of a write, or a call it repeats.
type WriteCall struct {
	// Operation is the DynamoDB operation (GetItem, BatchGetItem, Query, UpdateItem,
	// TransactWriteItems, BatchWriteItem).
	Operation string
	// Calls is the most calls; with PerData, the least, more depending on the data.
	Calls   int
	PerData bool
	// What says what the call reads or writes (an explain step's keyCondition).
	What string
}

// A WritePlan is what one write does: its calls, in order, made up to Attempts times (a write
// that re-reads and retries when what it read changed under it).
type WritePlan struct {
	Calls    []WriteCall
	Attempts int
}

// Tries is how often the plan's calls may be made: its Attempts, at least 1.
func (p WritePlan) Tries() int { return max(p.Attempts, 1) }

// OneTransaction is the plan of a write that is one TransactWriteItems.
func OneTransaction(what string) WritePlan {
	return WritePlan{Calls: []WriteCall{{Operation: "TransactWriteItems", Calls: 1, What: what}}}
}

// ConsistentRead is the strongly consistent BatchGetItem a write conditions its transaction on.
func ConsistentRead(what string) WriteCall {
	return WriteCall{Operation: "BatchGetItem", Calls: 1, What: what + ", consistent"}
}

// TransactCall is one TransactWriteItems call of a write.
func TransactCall(what string) WriteCall {
	return WriteCall{Operation: "TransactWriteItems", Calls: 1, What: what}
}

// PerDataCall is a call made once per chunk of the data (a page of a Query, a transaction's
// worth of items): at least none, more depending on the data.
func PerDataCall(op, what string) WriteCall {
	return WriteCall{Operation: op, PerData: true, What: what}
}

// MaxRemovalRounds bounds the rounds of a removal or unassignment that reads again when a
// concurrent change got in between (a user's removal removes the tickets each round found).
const MaxRemovalRounds = 5
