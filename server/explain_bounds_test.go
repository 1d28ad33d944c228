package server_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"singletable/graph"
	"singletable/loaders"
	"singletable/repository/repotest"
	"singletable/server"
)

// exactExamples are the examples whose plan is exact on the sample data: every list returns a
// full page, or the calls do not depend on how full it is. The others: 04-departments asks for 10
// departments of the sample's 5; 13-place-order's plan counts the reads of a replayed order
// (an idempotency key used before), which a first order does not make.
var exactExamples = map[string]bool{
	"01-organizations": true, "02-user-tickets": true, "03-create-ticket": true, "05-employee": true,
	"06-employees-by-job-title": true, "07-employees-hired-since": true, "08-create-location": true,
	"09-locations": true, "10-customer-orders": true, "11-orders-by-status": true, "12-order": true, "14-nodes": true,
	"23-product-stock": true,
}

// randomOperations is how many random operations TestExplainBoundsExecution runs, and workers how
// many at once.
const (
	randomOperations = 220
	workers          = 4
)

// TestExplainBoundsExecution explains every documented example and randomOperations random
// read operations over the schema (opGen, seeded with EXPLAIN_SEED, "clock" or defaultSeed;
// EXPLAIN_OP runs one of them), and one toward each object type they left out (every type is planned and run),
// then runs each as admin on the sample data: no DynamoDB operation makes more calls than the plan
// says, the rounds are at most its maxRounds, and for the exact examples both are equal. An
// explain itself makes no call and has no data, and the errors it reports (malformed IDs) are
// those the operation then answers, at the same paths.
//
// The key loader's window is one nanosecond: a lookup that a resolver asks for alone, outside the
// batches the plan's levels reserve (the loaders' follow), goes out alone and exceeds the plan, so
// the calls do not depend on how the machine spreads the resolvers out. Rounds are the loaders'
// own (repository.WithRound: a batch is one round after the data its keys come from), so they do
// not depend on timing either, and no time is added to the calls (EXPLAIN_PACE adds some); calls
// that do not know their round (the examples' mutations) are placed by their times, which is what
// the repeated runs (attempts) are for.
func TestExplainBoundsExecution(t *testing.T) {
	a := newAPI(t, server.Config{ComplexityLimit: 1 << 30, Loaders: loaders.Options{Wait: time.Nanosecond}},
		repotest.WithPace(pace()))
	if _, err := a.repo.Seed(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, ex := range loadExamples(t) {
		if ex.live || onlyOp() >= 0 {
			continue // a subscription reads per event, not per operation
		}
		if _, ok := ex.vars["idempotencyKey"]; ok {
			ex.vars["idempotencyKey"] = fmt.Sprintf("%v-%d", ex.vars["idempotencyKey"], time.Now().UnixNano())
		}
		if msg := checkAgainstPlan(a, ex.query, ex.vars, exactExamples[ex.name]); msg != "" {
			t.Errorf("%s: %s", ex.name, msg)
		}
	}
	seed := seedOf(t)
	g := &opGen{r: rand.New(rand.NewPCG(seed, 26)), schema: graph.NewExecutableSchema(graph.Config{}).Schema(), sample: sampleOf(t, a)}
	ops := make([]op, randomOperations)
	for i := range ops {
		ops[i] = g.next(i)
	}
	// Then one operation toward each type the random ones left out: every type is planned and run.
	paths := reachable(g.schema)
	for _, typ := range g.unreached(paths) {
		ops = append(ops, g.toward(len(ops), typ, paths[typ]))
	}
	if u := g.unreached(paths); len(u) > 0 {
		t.Fatalf("no operation reaches %v", u)
	}
	only := onlyOp()
	failed := runAll(len(ops), func(i int) string {
		if only >= 0 && i != only {
			return ""
		}
		return checkAgainstPlan(a, ops[i].query, ops[i].vars, false)
	})
	for i, msg := range failed {
		if msg != "" {
			t.Errorf("random operation %d (EXPLAIN_SEED=%d EXPLAIN_OP=%d): %s\noperation: %s\nvariables: %v", i, seed, i, msg, ops[i].query, ops[i].vars)
		}
	}
}

// runAll runs check(0..n-1), workers at a time, and returns what each said.
func runAll(n int, check func(i int) string) []string {
	out := make([]string, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = check(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// checkAgainstPlan explains an operation, runs it, and says how what it did departs from the
// plan ("" when it does not).
func checkAgainstPlan(a *api, query string, vars map[string]any, exact bool) string {
	e := a.explain(query, vars)
	if e.plan == nil || e.calls != 0 {
		return fmt.Sprintf("explain without a plan, or with %d DynamoDB calls: %s", e.calls, e.raw["errors"])
	}
	if _, ok := e.raw["data"]; ok {
		return "an explain has a data entry"
	}
	var r gqlResponse
	rounds := 0
	for run := 0; run < runsOf(query) && (run == 0 || rounds > e.plan.MaxRounds); run++ {
		r = a.query(query, vars)
		if over := within(e.plan, r.Extensions.DynamoDB.Calls, 0); over != "" {
			return fmt.Sprintf("over its plan: %s\nactual %v\n%s", over, r.Extensions.DynamoDB.Calls, planText(e.plan))
		}
		if run == 0 || r.Extensions.DynamoDB.Rounds < rounds {
			rounds = r.Extensions.DynamoDB.Rounds
		}
	}
	u := r.Extensions.DynamoDB
	var msgs []string
	if rounds > e.plan.MaxRounds {
		msgs = append(msgs, fmt.Sprintf("%d rounds over its plan's %d", rounds, e.plan.MaxRounds))
	}
	if exact && (!equalCalls(e.plan.MaxCalls, u.Calls) || rounds != e.plan.MaxRounds) {
		msgs = append(msgs, fmt.Sprintf("plan not exact: actual %v, %d rounds", u.Calls, rounds))
	}
	for _, pe := range e.errors {
		if !hasError(r.Errors, pe) {
			msgs = append(msgs, fmt.Sprintf("explain reports %v at %v, which the operation does not answer: %+v", pe.Extensions["code"], pe.Path, r.Errors))
		}
	}
	if len(msgs) > 0 {
		return strings.Join(msgs, "; ") + "\n" + planText(e.plan)
	}
	return ""
}

// attempts is how often a mutation whose rounds exceed its plan is run before its fewest rounds
// count: its writes are placed in rounds by their times. More under the race detector.
var attempts = map[bool]int{false: 3, true: 5}[raceEnabled]

// runsOf is how often an operation may run before its fewest rounds count: a query once, since
// every read of a query knows its round (the loaders' batches and lists, repository.WithRound),
// whatever the machine's load; a mutation attempts times.
func runsOf(query string) int {
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err == nil && len(doc.Operations) == 1 && doc.Operations[0].Operation == ast.Mutation {
		return attempts
	}
	return 1
}

// seedOf is the generator's seed: EXPLAIN_SEED, a seed from the clock with EXPLAIN_SEED=clock (so
// that each run tries other operations), or defaultSeed; it is logged, and a failure names it, to
// be repeated with EXPLAIN_SEED.
func seedOf(t *testing.T) uint64 {
	s := uint64(defaultSeed)
	switch v := os.Getenv("EXPLAIN_SEED"); v {
	case "":
	case "clock":
		s = uint64(time.Now().UnixNano()) % 1_000_000
	default:
		if _, err := fmt.Sscan(v, &s); err != nil {
			t.Fatalf("EXPLAIN_SEED=%q: %v", v, err)
		}
	}
	t.Logf("EXPLAIN_SEED=%d", s)
	return s
}

// defaultSeed is the seed of `make test`'s run: one that passed repeatedly with both cores kept busy.
const defaultSeed = 484914

// onlyOp is EXPLAIN_OP, the one random operation to run (the number a failure names), or -1 for
// all of them and the examples: `EXPLAIN_OP=96 scripts/with-dynamodb-local.sh go test -run
// TestExplainBoundsExecution ./server` repeats one failure.
func onlyOp() int {
	n := -1
	_, _ = fmt.Sscan(os.Getenv("EXPLAIN_OP"), &n)
	return n
}

// equalCalls compares calls by operation, an operation with no call as one left out.
func equalCalls(a, b map[string]int) bool {
	for op, n := range a {
		if b[op] != n {
			return false
		}
	}
	for op, n := range b {
		if a[op] != n {
			return false
		}
	}
	return true
}

// hasError reports whether errs holds an error with e's path and code.
func hasError(errs []gqlError, e gqlError) bool {
	for _, x := range errs {
		if fmt.Sprint(x.Path) == fmt.Sprint(e.Path) && x.Extensions["code"] == e.Extensions["code"] {
			return true
		}
	}
	return false
}

// sampleOf reads the sample data's IDs, job titles and location parts, for opGen.
func sampleOf(t *testing.T, a *api) sampleValues {
	t.Helper()
	var out map[string]any
	a.ok(`{
	  organizations(first: 10) { edges { node { __typename id users(first: 10) { edges { node { __typename id tickets(first: 10) { edges { node { __typename id } } } } } } } } }
	  departments(first: 100) { edges { node { __typename id location { __typename id country state city } } } }
	  employeesHiredSince(since: "1900-01-01T00:00:00Z", first: 100) { edges { node { __typename id jobTitle name } } }
	  customers(first: 10) { edges { node { __typename id orders(first: 10) { edges { node { __typename id } } } } } }
	  products(first: 20) { edges { node { __typename id } } }
	  warehouses(first: 20) { edges { node { __typename id employees(first: 20) { edges { node { __typename id name } } } } } }
	}`, nil, &out)
	s := sampleValues{ids: map[string][]string{}, states: map[string][]string{}, cities: map[string][]string{}}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if typ, ok := v["__typename"].(string); ok && v["id"] != nil {
				s.add(typ, v)
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(out)
	if len(s.ids) < 9 || len(s.jobTitles) == 0 || len(s.names) == 0 || len(s.countries) == 0 {
		t.Fatalf("sample values: %+v", s)
	}
	return s
}

// add records one object of the sample data.
func (s *sampleValues) add(typ string, v map[string]any) {
	s.ids[typ] = append(s.ids[typ], v["id"].(string))
	if jt, ok := v["jobTitle"].(string); ok {
		s.jobTitles = append(s.jobTitles, jt)
	}
	if name, ok := v["name"].(string); ok && typ == "Employee" {
		s.names = append(s.names, name)
	}
	if c, ok := v["country"].(string); ok {
		st, _ := v["state"].(string)
		s.countries = append(s.countries, c)
		s.states[c] = append(s.states[c], st)
		s.cities[st] = append(s.cities[st], v["city"].(string))
	}
}

// pace is how long each DynamoDB call takes in TestExplainBoundsExecution: EXPLAIN_PACE, or no
// added time at all. Its calls and rounds come from the loaders' own batches, not from timing, so
// they hold at DynamoDB Local's speed on a loaded machine; a pace only slows the test down.
func pace() time.Duration {
	d, err := time.ParseDuration(os.Getenv("EXPLAIN_PACE"))
	if err != nil {
		return 0
	}
	return d
}

// writePace is how long each DynamoDB call of a mutation takes in the tests that count a
// mutation's rounds, which are placed by their times: 15 ms (100 ms under the race detector, which
// makes the server's own work between two calls several times slower), so that calls a write
// makes at once overlap whatever the machine's load.
func writePace() time.Duration {
	if raceEnabled {
		return 100 * time.Millisecond
	}
	return 15 * time.Millisecond
}
