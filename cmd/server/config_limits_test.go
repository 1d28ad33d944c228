package main

import (
	"io"
	"net"
	"strings"
	"testing"

	"singletable/repository/repotest"
	"singletable/server"
)

func TestGuardConfigIsValidatedWithClearMessages(t *testing.T) {
	cases := []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"HOST": "not a host!"}, nil, `HOST / -host: "not a host!" is not an IP address or host name`},
		{map[string]string{"GRAPHQL_MAX_QUERY_BYTES": "2000000"}, nil, "GRAPHQL_MAX_QUERY_BYTES / -max-query-bytes: 2000000 must be between 256 and 1048576"},
		{map[string]string{"GRAPHQL_MAX_DEPTH": "deep"}, nil, `GRAPHQL_MAX_DEPTH="deep" is not a whole number`},
		{nil, []string{"-max-depth", "1"}, "GRAPHQL_MAX_DEPTH / -max-depth: 1 must be between 2 and 100"},
		{map[string]string{"GRAPHQL_MAX_FIELDS": "0"}, nil, "GRAPHQL_MAX_FIELDS / -max-fields: 0"},
		{map[string]string{"GRAPHQL_MAX_ALIASES": "-3"}, nil, "GRAPHQL_MAX_ALIASES / -max-aliases: -3"},
		{map[string]string{"GRAPHQL_MAX_FIELD_REPEATS": "0"}, nil, "GRAPHQL_MAX_FIELD_REPEATS / -max-field-repeats: 0"},
		{map[string]string{"GRAPHQL_MAX_TOKENS": "5"}, nil, "GRAPHQL_MAX_TOKENS / -max-tokens: 5"},
		{map[string]string{"GRAPHQL_QUERY_CACHE_BYTES": "100"}, nil, "GRAPHQL_QUERY_CACHE_BYTES / -query-cache-bytes: 100"},
		{map[string]string{"GRAPHQL_APQ_CACHE_BYTES": "1k"}, nil, `GRAPHQL_APQ_CACHE_BYTES="1k" is not a whole number`},
		{map[string]string{"RATE_LIMIT_RPS": "fast"}, nil, `RATE_LIMIT_RPS="fast" is not a number`},
		{nil, []string{"-rate-limit-rps", "-1"}, "RATE_LIMIT_RPS / -rate-limit-rps: -1 must be between 0 (off) and 1000000"},
		{map[string]string{"RATE_LIMIT_BURST": "-1"}, nil, "RATE_LIMIT_BURST / -rate-limit-burst: -1"},
		{map[string]string{"CAPACITY_BUDGET_RCU": "lots"}, nil, `CAPACITY_BUDGET_RCU="lots" is not a number`},
		{nil, []string{"-capacity-budget-rcu", "-5"}, "CAPACITY_BUDGET_RCU / -capacity-budget-rcu: -5 must be between 0 (off) and 1000000"},
		{map[string]string{"MAX_CONCURRENT_OPERATIONS": "-1"}, nil, "MAX_CONCURRENT_OPERATIONS / -max-concurrent-operations: -1"},
		{map[string]string{"MAX_SUBSCRIPTIONS_PER_PRINCIPAL": "-1"}, nil, "MAX_SUBSCRIPTIONS_PER_PRINCIPAL / -max-subscriptions-per-principal: -1"},
		{map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8, proxy.local"}, nil, `TRUSTED_PROXIES / -trusted-proxies: "proxy.local" is not an IP address or CIDR block`},
	}
	for _, c := range cases {
		vars := map[string]string{"CURSOR_SECRET": repotest.CursorSecret, "AUTH_HS256_SECRET": testSecret}
		for k, v := range c.env {
			vars[k] = v
		}
		_, err := parseConfig(c.args, func(k string) string { return vars[k] }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("env %v args %v: err = %v, want it to mention %q", c.env, c.args, err, c.want)
		}
	}

	// Defaults: the documented limits, a rate limit of 50/s with a burst of 100, a capacity budget
	// of 500 RCU/s, the concurrency cap, every interface.
	cfg, err := parseConfig(nil, func(k string) string { return map[string]string{"AUTH_HS256_SECRET": testSecret}[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var sc server.Config
	cfg.guard.apply(&sc)
	want := server.Limits{QueryBytes: 64 << 10, Depth: 15, Fields: server.DefaultMaxFields, Aliases: server.DefaultMaxAliases, Repeats: server.DefaultMaxFieldRepeats}
	if sc.Limits != want || sc.RateLimitRPS != 50 || sc.RateLimitBurst != 0 || sc.CapacityBudgetRCU != 500 || sc.MaxConcurrentOperations != server.DefaultMaxConcurrentOperations ||
		sc.ParserTokenLimit != server.DefaultParserTokenLimit || cfg.guard.host != "" || len(sc.TrustedProxies) != 0 ||
		cfg.guard.maxSubsEach != server.DefaultMaxSubscriptionsPerPrincipal {
		t.Fatalf("defaults: %+v host %q", sc, cfg.guard.host)
	}
	// Flags override the environment.
	cfg, err = parseConfig([]string{"-max-depth", "20", "-host", "::1", "-trusted-proxies", "10.0.0.1"}, func(k string) string {
		return map[string]string{"GRAPHQL_MAX_DEPTH": "8", "HOST": "127.0.0.1", "RATE_LIMIT_RPS": "2.5", "CAPACITY_BUDGET_RCU": "0", "AUTH_HS256_SECRET": testSecret}[k]
	}, io.Discard)
	if err != nil || cfg.guard.limits.Depth != 20 || cfg.guard.capacityRCU != 0 || cfg.guard.host != "::1" || cfg.guard.rateRPS != 2.5 || len(cfg.guard.trusted) != 1 {
		t.Fatalf("cfg %+v, err %v", cfg.guard, err)
	}
}

// TestHostChoosesTheListenAddress starts the real server with HOST=127.0.0.1: it listens on the
// loopback interface only.
func TestHostChoosesTheListenAddress(t *testing.T) {
	addr, _, stop, _ := start(t, nil, env(t, map[string]string{"HOST": "127.0.0.1"}))
	defer stop()
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" {
		t.Fatalf("listening on %q, want 127.0.0.1", addr)
	}
}
