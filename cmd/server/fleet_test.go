package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"singletable/fleet/fleettest"
	"singletable/graph/model"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/repotest"
	"singletable/repository/store"
)

// Three instances, one Redis, one DynamoDB Local: the fleet shares one reader of the table's
// stream, its limits and its persisted queries; it survives the death of the reader's instance
// and a restart of Redis.
func TestFleetOfThreeInstancesSharesTheStreamLimitsAndPersistedQueries(t *testing.T) {
	redis := fleettest.Start(t)
	getenv := env(t, map[string]string{"REDIS_URL": redis.URL(), "CAPACITY_BUDGET_RCU": "0.5"})
	fleet := []*instance{startInstance(t, []string{"-create-table", "-seed"}, getenv)}
	for range 2 {
		fleet = append(fleet, startInstance(t, nil, getenv))
	}
	w := newOrderWriter(t, getenv)

	t.Run("a persisted query registered on one instance runs on another", func(t *testing.T) {
		persistedQueryTravels(t, fleet[0], fleet[2])
	})
	t.Run("a capacity budget spent through one instance is spent on all", func(t *testing.T) {
		budgetIsShared(t, fleet)
	})

	subs := make([]*subscriber, len(fleet))
	for i, in := range fleet {
		subs[i], _ = subscribe(t, in, fmt.Sprint("subscriber-", i))
	}
	w.warmUp(t, fleet[0], subs)

	// Every change, written through any instance or by another writer, reaches every subscriber
	// exactly once.
	var ids []string
	for _, in := range fleet {
		ids = append(ids, w.viaAPI(t, in))
	}
	exactlyOnce(t, subs, append(ids, w.direct(t)), "written through each instance and directly")

	// The reader's instance dies: another takes over within 10 s, and the changes written
	// meanwhile arrive, once.
	killed := time.Now()
	alive, aliveSubs := killTheReader(t, fleet, subs)
	during := []string{w.viaAPI(t, alive[0]), w.direct(t)}
	if waitFor(t, aliveSubs, during, 10*time.Second) {
		t.Logf("events flowed again %v after the reader's instance died", time.Since(killed).Round(time.Millisecond))
	}
	exactlyOnce(t, aliveSubs, during, "written after the reader's instance died")

	redisStopsAndStarts(t, redis, alive, aliveSubs, w)
}

// exactlyOnce waits up to 10 s for every subscriber to hear of every order, then a second more
// for a duplicate to show, and fails unless each heard of each once.
func exactlyOnce(t *testing.T, subs []*subscriber, ids []string, what string) {
	t.Helper()
	if !waitFor(t, subs, ids, 10*time.Second) {
		t.Fatalf("not every subscriber heard within 10 s of the orders %s: %v", what, ids)
	}
	time.Sleep(time.Second)
	for i, s := range subs {
		for _, id := range ids {
			if n := s.count(id); n != 1 {
				t.Errorf("subscriber %d heard %d times of order %s (%s)", i, n, id, what)
			}
		}
	}
}

// killTheReader stops the instance that reads the table's stream at once (its lease left to
// expire, as after a crash) and returns the others and their subscribers.
func killTheReader(t *testing.T, fleet []*instance, subs []*subscriber) (alive []*instance, aliveSubs []*subscriber) {
	t.Helper()
	dead := leader(t, fleet)
	for i, in := range fleet {
		if i != dead {
			alive, aliveSubs = append(alive, in), append(aliveSubs, subs[i])
		}
	}
	fleet[dead].kill()
	<-fleet[dead].done
	return alive, aliveSubs
}

// persistedQueryTravels registers a document by its hash on one instance (APQ) and sends the
// hash alone to another.
func persistedQueryTravels(t *testing.T, on, other *instance) {
	const query = `query Names { organizations { edges { node { name } } } }`
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": sha256Hex(query)}}
	if r := gql(t, other, "apq-user", map[string]any{"extensions": ext}); r.code() != "" && !strings.Contains(fmt.Sprint(r.Errors), "PersistedQueryNotFound") {
		t.Fatalf("before registering: %+v", r)
	} else if r.Data["organizations"] != nil {
		t.Fatal("the hash found a document before anyone registered it")
	}
	if r := gql(t, on, "apq-user", map[string]any{"query": query, "extensions": ext}); r.Data["organizations"] == nil {
		t.Fatalf("registering: %+v", r)
	}
	if r := gql(t, other, "apq-user", map[string]any{"extensions": ext}); r.Data["organizations"] == nil {
		t.Fatalf("the hash alone on another instance: %+v", r)
	}
	if r := gql(t, other, "someone-else", map[string]any{"extensions": ext}); r.Data["organizations"] != nil {
		t.Fatal("another principal found the document by its hash")
	}
}

// budgetIsShared spends a principal's capacity budget through instance 1 until it is refused,
// then asks instances 2 and 3 at once.
func budgetIsShared(t *testing.T, fleet []*instance) {
	q := map[string]any{"query": `{ organizations { edges { node { name users { edges { node { name } } } } } } }`}
	for i := 0; ; i++ {
		r := gql(t, fleet[0], "big-spender", q)
		if r.Status == 429 {
			break
		}
		if i == 100 {
			t.Fatalf("the budget never ran out: %+v", r)
		}
	}
	for i, in := range fleet[1:] {
		r := gql(t, in, "big-spender", q)
		if r.Status != 429 || r.code() != "RATE_LIMITED" || r.Errors[0].Extensions["limit"] != "capacity" {
			t.Errorf("instance %d served a principal whose budget was spent on instance 1: %d %+v", i+2, r.Status, r.Errors)
		}
	}
	if r := gql(t, fleet[1], "thrifty", q); r.Status != 200 {
		t.Errorf("another principal was refused: %d %+v", r.Status, r.Errors)
	}
}

// leader is the index of the instance that reads the table's stream now.
func leader(t *testing.T, fleet []*instance) int {
	t.Helper()
	for i, in := range fleet {
		if strings.Contains(in.logs.String(), "this instance reads the table's stream for the fleet") {
			return i
		}
	}
	t.Fatal("no instance reads the table's stream")
	return -1
}

// redisStopsAndStarts stops Redis: queries and mutations keep working, subscriptions end and are
// refused with UNAVAILABLE; once Redis is back, subscriptions work again.
func redisStopsAndStarts(t *testing.T, redis *fleettest.Redis, alive []*instance, subs []*subscriber, w *orderWriter) {
	redis.Stop()
	for i, s := range subs {
		select {
		case code := <-s.ended:
			if code != "UNAVAILABLE" {
				t.Errorf("subscriber %d ended with %q when Redis stopped, want UNAVAILABLE", i, code)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("subscriber %d did not end when Redis stopped:\n%s", i, grepLines(alive[i].logs.String(), "edis"))
		}
	}
	w.viaAPI(t, alive[0]) // a mutation without Redis
	if r := gql(t, alive[1], "no-redis", map[string]any{"query": `{ organizations { edges { node { name } } } }`}); r.Status != 200 || len(r.Errors) > 0 {
		t.Fatalf("a query without Redis: %d %+v", r.Status, r.Errors)
	}
	if _, code := subscribe(t, alive[1], "no-redis"); code != "UNAVAILABLE" {
		t.Errorf("a subscription without Redis answered %q, want UNAVAILABLE", code)
	}
	redis.Start()
	var again []*subscriber
	for _, in := range alive {
		deadline := time.Now().Add(20 * time.Second)
		for {
			s, code := subscribe(t, in, "after-redis")
			if code == "" {
				again = append(again, s)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("subscriptions still refused (%s) 20 s after Redis came back", code)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	w.warmUp(t, alive[0], again)
}

// orderWriter places orders for one customer, through the API or as another writer would.
type orderWriter struct {
	repo     *store.Store
	customer *commerce.Customer
	n        atomic.Int64
}

func newOrderWriter(t *testing.T, getenv func(string) string) *orderWriter {
	t.Helper()
	r, err := store.New(context.Background(), repository.Config{Table: getenv("DYNAMODB_TABLE"), Region: "us-east-1",
		Endpoint: getenv("AWS_ENDPOINT_URL_DYNAMODB"), CursorSecret: []byte(repotest.CursorSecret)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.CreateCustomer(context.Background(), "Fleet Buyer", "fleet-buyer@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	return &orderWriter{repo: r, customer: c}
}

// viaAPI places an order through an instance and returns its id.
func (w *orderWriter) viaAPI(t *testing.T, in *instance) string {
	t.Helper()
	n := w.n.Add(1)
	r := gql(t, in, fmt.Sprint("writer-", n), map[string]any{
		"query": `mutation($in: PlaceOrderInput!) { placeOrder(input: $in) { id } }`,
		"variables": map[string]any{"in": map[string]any{"customerId": model.Customers.ID(w.customer), "idempotencyKey": fmt.Sprint("fleet-", n),
			"items": []any{map[string]any{"sku": "S-1", "productName": "Widget", "quantity": 1, "unitPriceCents": 100}}}},
	})
	var out struct {
		ID string `json:"id"`
	}
	if r.Status != 200 || len(r.Errors) > 0 || json.Unmarshal(r.Data["placeOrder"], &out) != nil {
		t.Fatalf("placeOrder: %d %+v", r.Status, r.Errors)
	}
	return out.ID
}

// direct places an order with the repository, as a writer other than the API would.
func (w *orderWriter) direct(t *testing.T) string {
	t.Helper()
	n := w.n.Add(1)
	o, _, err := w.repo.PlaceOrder(context.Background(), w.customer.ID, []commerce.OrderLine{{SKU: "S-2", ProductName: "Gadget", Quantity: 1, UnitPriceCents: 250}}, fmt.Sprint("direct-", n))
	if err != nil {
		t.Fatal(err)
	}
	return model.Orders.ID(o)
}

// warmUp places orders until every subscriber hears of one: the fleet's reader is at work and
// every instance reads its changes.
func (w *orderWriter) warmUp(t *testing.T, in *instance, subs []*subscriber) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if waitFor(t, subs, []string{w.viaAPI(t, in)}, 2*time.Second) {
			return
		}
	}
	t.Fatal("the subscribers heard of no change within 30 s")
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
