package planner

import (
	"cmp"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Explain: the plan of an operation, what it reads and writes and the most calls and rounds that
// takes, computed without running it from the same table (Table, Mutations) and the same levels
// (Level) that drive its execution. It is generic over the table: a new row of Table is explained
// by its Kind, its Reads (their Scaling) and its flags (Combined, GathersLevel, Primes,
// SameForAll, MaxKeys), with no explain code of its own. The walk follows what execution does:
//
//   - a query's root lookups are read together, in round 1: one batch of every key of every
//     node, nodes and typed lookup, the Combined reads, and the lists that follow from the IDs
//     of objects whose scope the ID decides (Execution.Starts), all dispatched at once;
//   - a whole level read ahead (a root lookup's objects, a root list's page, the elements of the
//     lists a level starts): its lists start in the next round, and its lookups go in one batch
//     per step (to-one fields and relation items, then relation targets with the relations
//     selected on them, then those targets), each step a round; the level's resolvers run once
//     every step but the last is back;
//   - an inverse-relation list (GathersLevel): its Queries, then its elements with their first
//     lookups in one batch for every list of the level;
//   - a list its resolver reads (a later page, a list no level starts, the lists of a to-one
//     field's objects): one Query per parent when the parent resolves, its elements' lookups in
//     the loaders' window, each list counted apart;
//   - a to-one field's objects: each field's own resolver, through the loaders' window;
//   - a mutation: its writes one after another (Mutations), then the reads of its result.
//
// Lookups by key count ⌈keys / 100⌉ BatchGetItem calls per batch, keys counted per object
// without removing duplicates, so the counts are upper bounds, exact when every list returns a
// full page, every object exists and no key is asked for twice. A Query is counted as one call per
// page: a page whose Query needs more (a status filter that skips items, more than 1 MB of items,
// a customer's orders with more than three items each) makes more, and a write's call marked
// PerData (renameDepartment's propagation to every employee) depends on the data: its step has no
// MaxCalls and the plan is not Bounded.

// An Execution is what the walk needs to know from the layers above the planner: the resolvers
// (which lists a level starts ahead, how an ID decodes and whether the caller may see it) and the
// caller (its roles).
type Execution interface {
	// Roots decodes and checks the IDs root lookup f (with row) asks for, as its resolver would,
	// reading nothing. A non-nil error is the field's own (more IDs than nodes(ids:) takes).
	Roots(f graphql.CollectedField, row *Field) ([]RootRead, error)
	// Starts reports whether the resolvers start list for every object of a level at once (and
	// from the objects' IDs, for root lookups); false: its resolver reads it.
	Starts(list *Field) bool
	// Narrowed reports whether root list row is narrowed to the caller's one object, which is
	// then read by key (an org role's organizations).
	Narrowed(row *Field) bool
	// Allowed is the FORBIDDEN error of a root field or mutation the caller may not use.
	Allowed(object, field string) error
	// Subscribes is the error subscription root field f answers when it opens, from its
	// arguments alone (an ID outside the caller's scope), reading nothing.
	Subscribes(f graphql.CollectedField) error
	// Shards is N, the Queries one page of ordersByStatus makes.
	Shards() int
}

// A RootRead is one object a root lookup asks for by ID, as decided from the ID alone.
type RootRead struct {
	// Type is the object's type; Key names the object (an ID asked for twice is read once).
	Type, Key string
	// Completes says the ID is an older one that names the object without its whole key: one
	// Query (TicketByIDRead) finds the key before the object is read, one ID after another.
	Completes bool
	// Err is the ID's own error (malformed, outside the caller's scope): nothing is read for it.
	Err error
}

// A FieldError is an error execution would report at Path, found without running anything.
type FieldError struct {
	Path ast.Path
	Err  error
}

// A Step is one read or write of an operation's plan.
type Step struct {
	// Path is where in the answer the step's objects appear: response keys (aliases where given)
	// joined by dots, a connection's elements under "edges.node".
	Path string `json:"path"`
	// AccessPattern is the read's row of the access-pattern table (AP1…AP33); nil for a write.
	AccessPattern *string   `json:"accessPattern"`
	Operation     Operation `json:"operation"`
	// Index is the GSI read (nil for the table).
	Index        *string `json:"index"`
	KeyCondition string  `json:"keyCondition"`
	Round        int     `json:"round"`
	// MaxCalls is the most calls the step makes, alone; nil where that depends on the data.
	MaxCalls *int `json:"maxCalls"`
	// Keys is, for a lookup by key, the most keys it asks for; Batch numbers the lookups sent in
	// the same BatchGetItem calls (⌈their keys together / 100⌉, which the plan's maxCalls counts).
	Keys  int `json:"keys,omitempty"`
	Batch int `json:"batch,omitempty"`
	// Payload is the label of the deferred fragment (@defer) whose payload the step's objects
	// are delivered in; absent for the initial payload. Deferred steps are batched with the others
	// of their round (the loaders share one plan), so they count in the same bounds.
	Payload *string `json:"payload,omitempty"`

	page bool // a Query of a list page: priced as one (Price)
}

// An Explanation is the plan of one operation.
type Explanation struct {
	// MaxCalls are the most calls by DynamoDB operation, MaxRounds the most rounds of calls that
	// wait for one another.
	MaxCalls  map[Operation]int `json:"maxCalls"`
	MaxRounds int               `json:"maxRounds"`
	// Bounded is false when a step's calls depend on the data (MaxCalls then counts its least).
	Bounded bool   `json:"bounded"`
	Steps   []Step `json:"steps"`
	// Errors are what execution would refuse before reading: FORBIDDEN root fields, malformed IDs
	// and IDs outside the caller's scope. Their fields have no steps.
	Errors []FieldError `json:"-"`

	pageCalls, otherCalls int
}

// Price is the operation's complexity: 50 points per call that reads a page of a list (each
// Query of a connection, each shard of ordersByStatus, an object read with its first page) and
// ½ point per other call (a lookup by key of up to 100 objects, an object read with its items,
// a write), rounded up. One pricing model for the limit and the plan: what the plan says an
// operation may call is what it pays.
func (e *Explanation) Price() int {
	return pagePrice*e.pageCalls + (e.otherCalls+1)/2
}

// pagePrice is the price of a page read: a Query returns up to a page of items.
const pagePrice = 50

// Explain plans operation op of plan p (whose levels execution then shares) for the caller ex
// describes. Without record the plan keeps only its counts (what the complexity limit needs):
// no steps, no paths.
func Explain(p *Plan, ex Execution, record bool) *Explanation {
	w := &walker{plan: p, ex: ex, record: record, vars: p.op.Variables,
		out: &Explanation{MaxCalls: map[Operation]int{}, Bounded: true, Steps: []Step{}}}
	switch p.op.Operation.Operation {
	case ast.Query:
		w.query()
	case ast.Mutation:
		w.mutation()
	case ast.Subscription:
		w.subscription()
	}
	for _, b := range w.batches {
		w.closeBatch(b)
	}
	w.labelPayloads()
	slices.SortStableFunc(w.out.Steps, func(a, b Step) int { return cmp.Compare(a.Round, b.Round) })
	return w.out
}
