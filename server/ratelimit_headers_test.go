package server_test

import (
	"net/http"
	"strconv"
	"testing"

	"singletable/server"
)

// limitHeader reads one integer header of a response, failing the test when it is missing.
func limitHeader(t *testing.T, r gqlResponse, name string) int {
	t.Helper()
	v, err := strconv.Atoi(r.header.Get(name))
	if err != nil {
		t.Fatalf("%s: %q (status %d)", name, r.header.Get(name), r.status)
	}
	return v
}

// Every /query answer, refused or not, says where its principal stands with the request rate
// (RateLimit-*) and the capacity budget (X-Capacity-*, in read capacity units): Remaining goes
// down with each request and with the capacity consumed, Reset says when the bucket is full again.
func TestLimitHeadersOnEveryAnswer(t *testing.T) {
	a := newAPI(t, server.Config{RateLimitRPS: 1, RateLimitBurst: 3, CapacityBudgetRCU: 1})
	a.seedSaaS(3, 0, 0)
	const q = `{ organizations(first: 3) { edges { node { name } } } }`
	for i := range 3 {
		r := a.query(q, nil)
		if r.status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, r.status, r.raw)
		}
		if l, rem := limitHeader(t, r, "RateLimit-Limit"), limitHeader(t, r, "RateLimit-Remaining"); l != 3 || rem != 2-i {
			t.Fatalf("request %d: RateLimit-Limit %d, RateLimit-Remaining %d, want 3 and %d", i+1, l, rem, 2-i)
		}
		if reset := limitHeader(t, r, "RateLimit-Reset"); reset < 1 || reset > 3 {
			t.Fatalf("request %d: RateLimit-Reset %d, want 1 to 3 s", i+1, reset)
		}
		if l := limitHeader(t, r, "X-Capacity-Limit"); l != 10 {
			t.Fatalf("X-Capacity-Limit %d, want 10 RCU", l)
		}
		if rem := limitHeader(t, r, "X-Capacity-Remaining"); i > 0 && rem >= 10 {
			t.Fatalf("request %d: X-Capacity-Remaining %d after capacity was consumed", i+1, rem)
		}
		if i > 0 && limitHeader(t, r, "X-Capacity-Reset") < 1 {
			t.Fatalf("request %d: X-Capacity-Reset %s", i+1, r.header.Get("X-Capacity-Reset"))
		}
	}
	r := a.query(q, nil)
	if r.status != http.StatusTooManyRequests || limitHeader(t, r, "RateLimit-Remaining") != 0 || limitHeader(t, r, "Retry-After") < 1 {
		t.Fatalf("over the rate: %d, RateLimit-Remaining %q, Retry-After %q", r.status, r.header.Get("RateLimit-Remaining"), r.header.Get("Retry-After"))
	}
	if limitHeader(t, r, "X-Capacity-Limit") != 10 {
		t.Fatalf("over the rate: X-Capacity-Limit %q, want the budget's headers on this refusal too", r.header.Get("X-Capacity-Limit"))
	}
}

// With both limits off no limit header is sent; a browser on an allowed origin may read them.
func TestLimitHeadersOffAndExposed(t *testing.T) {
	a := newAPI(t, server.Config{})
	if r := a.query(`{ organizations { edges { cursor } } }`, nil); r.header.Get("RateLimit-Limit") != "" || r.header.Get("X-Capacity-Limit") != "" {
		t.Fatalf("limits off, headers %v", r.header)
	}
	b := newAPI(t, server.Config{RateLimitRPS: 5, CORSOrigins: []string{"https://app.example"}})
	r := b.post(nil, http.Header{"Origin": {"https://app.example"}})
	if got := r.header.Get("Access-Control-Expose-Headers"); got == "" || limitHeader(t, r, "RateLimit-Limit") != 10 {
		t.Fatalf("exposed %q, headers %v", got, r.header)
	}
}
