package server

import (
	"context"
	"sync"

	"singletable/repository"
)

// payloadCost is the cost entry of an operation delivered in payloads (@defer over multipart/mixed
// or Server-Sent Events: deferredExecutor). The request's meter counts every call of every
// payload, so each payload's extensions.dynamodb says what was called since the payload before it
// was written: the entries of all payloads add up to the operation's, and a client that sums them
// counts each call once (a running total would count the first payload's calls again in every
// later one). rounds is the request's longest chain of calls so far, a depth that does not add up.
// The capacity budget is settled once, with the whole operation's capacity, as the last payload
// (hasNext false) is written, and only that payload carries budgetRemaining: the reservation the
// whole operation took stands until the reads of every payload are done. A client that leaves
// before the last payload is settled when its request ends (withAdmission: cut short, it
// keeps at least its reservation).
type payloadCost struct {
	mu      sync.Mutex
	prev    repository.Usage
	stopped bool // the client went away: no payload settles the budget any more
}

type payloadCostKey struct{}

func withPayloadCost(ctx context.Context) (context.Context, *payloadCost) {
	pc := &payloadCost{}
	return context.WithValue(ctx, payloadCostKey{}, pc), pc
}

// stop leaves the budget to the request's end: the payloads still produced are written to nobody.
func (pc *payloadCost) stop() {
	pc.mu.Lock()
	pc.stopped = true
	pc.mu.Unlock()
}

func payloadCostOf(ctx context.Context) *payloadCost {
	pc, _ := ctx.Value(payloadCostKey{}).(*payloadCost)
	return pc
}

// entry is the cost entry of the payload being written; last settles the budget.
func (pc *payloadCost) entry(ri *requestInfo, last bool) dynamoDBEntry {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	now := ri.meter.Usage()
	e := dynamoDBEntry{Usage: usageSince(now, pc.prev)}
	pc.prev = now
	if last && ri.budget != nil && !pc.stopped {
		left := ri.budget.settle(now.TotalCapacity, false)
		e.BudgetRemaining = &left
	}
	return e
}

// usageSince is what was called and consumed between prev and now, two readings of one meter.
func usageSince(now, prev repository.Usage) repository.Usage {
	out := repository.Usage{
		Calls:         map[string]int{},
		CapacityUnits: map[string]float64{},
		TotalCalls:    now.TotalCalls - prev.TotalCalls,
		TotalCapacity: now.TotalCapacity - prev.TotalCapacity,
		Rounds:        now.Rounds,
		DynamoDBTime:  now.DynamoDBTime - prev.DynamoDBTime,
	}
	for op, n := range now.Calls {
		if d := n - prev.Calls[op]; d > 0 {
			out.Calls[op] = d
		}
	}
	for op, c := range now.CapacityUnits {
		if d := c - prev.CapacityUnits[op]; d > 0 {
			out.CapacityUnits[op] = d
		}
	}
	return out
}
