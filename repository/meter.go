package repository

import (
	"context"
	"slices"
	"sync"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// A Meter counts the DynamoDB calls one GraphQL operation makes and the capacity they consume.
// The server attaches one to each request's context (WithMeter); an SDK middleware installed on the
// client records every call made with that context, so the count is exact whatever code path
// issued the call: resolvers, loaders or mutations.
type Meter struct {
	mu    sync.Mutex
	start time.Time
	calls []CallRecord
}

// CallRecord is one DynamoDB API call (retries inside the SDK included in its duration).
type CallRecord struct {
	Operation     string
	Start, End    time.Duration // since the meter was created
	CapacityUnits float64
	Failed        bool
	// Round is the call's place in the operation's chain of dependent reads as the code that made
	// it knows it (WithRound); 0 when it does not, and then the call's times place it.
	Round int
}

// Usage summarises a Meter; it is what the `extensions.dynamodb` entry of a response shows.
type Usage struct {
	// Calls by operation name ("Query", "BatchGetItem", ...).
	Calls map[string]int `json:"calls"`
	// CapacityUnits consumed, by operation name (ReturnConsumedCapacity=TOTAL on every call).
	CapacityUnits map[string]float64 `json:"consumedCapacityUnits"`
	TotalCalls    int                `json:"totalCalls"`
	TotalCapacity float64            `json:"totalConsumedCapacityUnits"`
	// Rounds is the length of the longest chain of calls each of which waited for the one before:
	// how many round trips to DynamoDB lie one after another on the critical path. The loaders'
	// calls know their round (a batch is one round after the data its keys come from); any other
	// call is placed by its times (one round after the deepest call that ended before it began).
	Rounds int `json:"rounds"`
	// DynamoDBTime is the wall time during which at least one call was in flight.
	DynamoDBTime time.Duration `json:"-"`
}

type meterKey struct{}

// WithMeter returns a context that meters the DynamoDB calls made with it.
func WithMeter(ctx context.Context) (context.Context, *Meter) {
	m := &Meter{start: time.Now()}
	return context.WithValue(ctx, meterKey{}, m), m
}

func meterFrom(ctx context.Context) *Meter {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	return m
}

func (m *Meter) record(c CallRecord) {
	m.mu.Lock()
	m.calls = append(m.calls, c)
	m.mu.Unlock()
}

// Records returns a copy of the calls recorded so far, in the order they ended.
func (m *Meter) Records() []CallRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.calls)
}

// Usage summarises the calls recorded so far.
func (m *Meter) Usage() Usage {
	calls := m.Records()
	u := Usage{Calls: map[string]int{}, CapacityUnits: map[string]float64{}}
	for _, c := range calls {
		u.Calls[c.Operation]++
		u.CapacityUnits[c.Operation] += c.CapacityUnits
		u.TotalCalls++
		u.TotalCapacity += c.CapacityUnits
	}
	u.Rounds = rounds(calls)
	u.DynamoDBTime = busyTime(calls)
	return u
}

// rounds computes the longest chain of dependent calls. A call that knows its round (the
// loaders', which send a batch when the data its keys come from is back: WithRound) is in that
// round, whatever the machine's load; any other is one round after the deepest call that ended
// before it started.
func rounds(calls []CallRecord) int {
	byStart := slices.Clone(calls)
	slices.SortFunc(byStart, func(a, b CallRecord) int { return int(a.Start - b.Start) })
	depth := make([]int, len(byStart))
	best := 0
	for i, c := range byStart {
		depth[i] = c.Round
		if c.Round == 0 {
			depth[i] = 1
			for j := range i {
				if byStart[j].End <= c.Start && depth[j]+1 > depth[i] {
					depth[i] = depth[j] + 1
				}
			}
		}
		best = max(best, depth[i])
	}
	return best
}

type roundKey struct{}

// WithRound returns ctx for the calls of round n of the operation: n 0 for the code that makes
// its first calls (a root field's resolver), whose reads NextRound places in round 1.
func WithRound(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, roundKey{}, n)
}

// WithoutRound returns ctx for calls whose round the code does not know (their times place them):
// what follows them does not know either.
func WithoutRound(ctx context.Context) context.Context {
	return context.WithValue(ctx, roundKey{}, -1)
}

// RoundOf is the round ctx's calls are in, and whether it is known.
func RoundOf(ctx context.Context) (int, bool) {
	n, ok := ctx.Value(roundKey{}).(int)
	return n, ok && n >= 0
}

// NextRound returns ctx for calls that wait for the data of ctx's round: one round later, or
// still unknown.
func NextRound(ctx context.Context) context.Context {
	if n, ok := RoundOf(ctx); ok {
		return WithRound(ctx, n+1)
	}
	return ctx
}

// roundOf is the round a call made with ctx records: 0 when it is not known.
func roundOf(ctx context.Context) int {
	if n, ok := RoundOf(ctx); ok {
		return n
	}
	return 0
}

// busyTime is the union of the calls' intervals.
func busyTime(calls []CallRecord) time.Duration {
	byStart := slices.Clone(calls)
	slices.SortFunc(byStart, func(a, b CallRecord) int { return int(a.Start - b.Start) })
	var total, curStart, curEnd time.Duration
	for i, c := range byStart {
		if i == 0 || c.Start > curEnd {
			total += curEnd - curStart
			curStart, curEnd = c.Start, c.End
			continue
		}
		curEnd = max(curEnd, c.End)
	}
	return total + curEnd - curStart
}

type callsUntilKey struct{}

// WithCallsUntil returns ctx whose DynamoDB calls end when until is done, whether ctx is or not: a
// call not yet made fails with until's error without reaching DynamoDB (nor the Meter), a call in
// flight is cancelled. For work that must run to its end on a context nothing cancels (gqlgen's
// deferred fragments, whose results must be received) while its reads stop with the request.
func WithCallsUntil(ctx, until context.Context) context.Context {
	return context.WithValue(ctx, callsUntilKey{}, until)
}

// meterMiddleware asks every call for its consumed capacity and records it on the context's Meter.
// It sits in the Initialize step, so SDK retries of one call count once. It also ends the calls
// of a context WithCallsUntil bounds.
var meterMiddleware = initializeStep(middleware.InitializeMiddlewareFunc("CostMeter",
	func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if until, ok := ctx.Value(callsUntilKey{}).(context.Context); ok {
			if err := until.Err(); err != nil {
				return middleware.InitializeOutput{}, middleware.Metadata{}, err
			}
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(until, cancel)()
		}
		requestCapacity(in.Parameters)
		m := meterFrom(ctx)
		if m == nil {
			return next.HandleInitialize(ctx, in)
		}
		start := time.Since(m.start)
		out, md, err := next.HandleInitialize(ctx, in)
		m.record(CallRecord{
			Operation:     awsmiddleware.GetOperationName(ctx),
			Start:         start,
			End:           time.Since(m.start),
			CapacityUnits: capacityOf(out.Result),
			Failed:        err != nil,
			Round:         roundOf(ctx),
		})
		return out, md, err
	}))

func requestCapacity(params any) {
	total := types.ReturnConsumedCapacityTotal
	switch in := params.(type) {
	case *dynamodb.QueryInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.BatchGetItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.GetItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.PutItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.UpdateItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.DeleteItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.TransactWriteItemsInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.TransactGetItemsInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.BatchWriteItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.ScanInput:
		in.ReturnConsumedCapacity = total
	}
}

func capacityOf(result any) float64 {
	one := func(c *types.ConsumedCapacity) float64 {
		if c == nil || c.CapacityUnits == nil {
			return 0
		}
		return *c.CapacityUnits
	}
	many := func(cs []types.ConsumedCapacity) (sum float64) {
		for i := range cs {
			sum += one(&cs[i])
		}
		return sum
	}
	switch out := result.(type) {
	case *dynamodb.QueryOutput:
		return one(out.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		return many(out.ConsumedCapacity)
	case *dynamodb.GetItemOutput:
		return one(out.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		return one(out.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		return one(out.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		return one(out.ConsumedCapacity)
	case *dynamodb.TransactWriteItemsOutput:
		return many(out.ConsumedCapacity)
	case *dynamodb.TransactGetItemsOutput:
		return many(out.ConsumedCapacity)
	case *dynamodb.BatchWriteItemOutput:
		return many(out.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		return one(out.ConsumedCapacity)
	}
	return 0
}
