package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"singletable/auth"
	"singletable/repository/repotest"
	"singletable/server"
)

// heavyRead reads a page of organizations and a page of users of each: 11 Queries planned, so it
// reserves 55 RCU (550 points at 0.1 RCU), far more than the bucket of these tests holds.
const heavyRead = `{ organizations(first: 10) { edges { node { name users(first: 10) { edges { node { name } } } } } } }`

// rawQuery posts query as the holder of token with ctx, returning the status and the consumed
// capacity (0 for an answer that did not come).
func rawQuery(ctx context.Context, url, token, query string) (status int, consumed float64) {
	body, _ := json.Marshal(map[string]any{"query": query})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/query", bytes.NewReader(body))
	if err != nil {
		return 0, 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0
	}
	defer resp.Body.Close()
	var out struct {
		Extensions struct {
			DynamoDB struct{ TotalConsumedCapacityUnits float64 } `json:"dynamodb"`
		} `json:"extensions"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.Extensions.DynamoDB.TotalConsumedCapacityUnits
}

// Forty concurrent heavy reads of one principal: each reserves before it runs (its price, at most
// an eighth of the bucket), so the reads admitted before the bucket is empty, and settled at what
// they consumed, cannot together consume much more than the bucket (10 RCU); the others are
// refused with 429.
func TestConcurrentRequestsCannotOverdrawTheCapacityBudget(t *testing.T) {
	a := newAPI(t, server.Config{CapacityBudgetRCU: 1}, repotest.WithLatency(20*time.Millisecond, 0))
	a.seedSaaS(10, 10, 0)
	token := tokenFor(t, auth.Claims{Subject: "heavy", Roles: []string{string(auth.RoleAdmin)}})
	var mu sync.Mutex
	consumed, refused := 0.0, 0
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			status, c := rawQuery(context.Background(), a.url, token, heavyRead)
			mu.Lock()
			defer mu.Unlock()
			consumed += c
			if status == http.StatusTooManyRequests {
				refused++
			}
		})
	}
	wg.Wait()
	if consumed > 10+55 || refused == 0 {
		t.Fatalf("40 concurrent heavy reads consumed %.1f RCU of a 10 RCU bucket (%d refused), want at most 65", consumed, refused)
	}
}

// A request the client aborts is charged at least what it reserved: DynamoDB reports no capacity
// for the calls cancelled, so charging what was reported would make aborting free.
func TestAnAbortedRequestKeepsItsReservation(t *testing.T) {
	a := newAPI(t, server.Config{CapacityBudgetRCU: 1}, repotest.WithLatency(100*time.Millisecond, 0))
	a.seedSaaS(10, 10, 0)
	token := tokenFor(t, auth.Claims{Subject: "aborter", Roles: []string{string(auth.RoleAdmin)}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if status, _ := rawQuery(ctx, a.url, token, heavyRead); status != 0 {
		t.Fatalf("the aborted request was answered %d", status)
	}
	time.Sleep(500 * time.Millisecond) // the server notices the abort and settles
	if status, _ := rawQuery(context.Background(), a.url, token, `{ organizations(first: 1) { edges { node { name } } } }`); status != http.StatusTooManyRequests {
		t.Fatalf("after an aborted request that reserved 55 RCU of a 10 RCU bucket, the next one got %d, want 429", status)
	}
}

// A client's ordinary parallelism: four heavy reads of one principal at once on a 50 RCU bucket
// (CAPACITY_BUDGET_RCU=5), each planned at 55 RCU and consuming a few: all run, since together
// they consume far less than the bucket holds.
func TestAClientsOrdinaryParallelismIsNotRefused(t *testing.T) {
	a := newAPI(t, server.Config{CapacityBudgetRCU: 5}, repotest.WithLatency(50*time.Millisecond, 0))
	a.seedSaaS(10, 10, 0)
	token := tokenFor(t, auth.Claims{Subject: "parallel", Roles: []string{string(auth.RoleAdmin)}})
	var mu sync.Mutex
	statuses, consumed := map[int]int{}, 0.0
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			status, c := rawQuery(context.Background(), a.url, token, heavyRead)
			mu.Lock()
			defer mu.Unlock()
			statuses[status]++
			consumed += c
		})
	}
	wg.Wait()
	if statuses[http.StatusOK] != 4 {
		t.Fatalf("four parallel heavy reads that consumed %.1f RCU of a 50 RCU bucket: %v", consumed, statuses)
	}
}
