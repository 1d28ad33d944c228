package server_test

import (
	"fmt"
	"testing"

	"singletable/fleet"
	"singletable/fleet/fleettest"
	"singletable/repository/store/storetest"
	"singletable/server"
)

// In a fleet, the X-Capacity-* headers report the shared bucket: what a principal spent on one
// instance shows on the others, in the headers as in the body's budgetRemaining, so a client
// that backs off on the header does.
func TestCapacityHeadersReportTheFleetsBucket(t *testing.T) {
	f, err := fleet.Open(fleettest.URL(t), fleet.Options{Prefix: "test-" + t.Name() + ":"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	repo := storetest.New(t)
	for _, rps := range []float64{0, 1000} {
		cfg := server.Config{CapacityBudgetRCU: 5, RateLimitRPS: rps, SharedLimits: f}
		one, two := newAPIOn(t, repo, cfg), newAPIOn(t, repo, cfg)
		if rps == 0 {
			one.seedSaaS(10, 10, 0)
		}
		spender := one.as(authClaims(fmt.Sprintf("spender-%v", rps)))
		for range 3 {
			if r := spender.query(heavyRead, nil); r.status != 200 {
				t.Fatalf("spending on instance one: %d %s", r.status, r.raw)
			}
		}
		other := *spender
		other.url = two.url
		r := other.query(`{ __typename }`, nil)
		if rem := limitHeader(t, r, "X-Capacity-Remaining"); rem >= 50 {
			t.Errorf("rate limiter at %v: instance two reports X-Capacity-Remaining %d after the principal spent on instance one", rps, rem)
		}
	}
}
