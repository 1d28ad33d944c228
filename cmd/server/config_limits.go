package main

import (
	"flag"
	"net/netip"
	"regexp"

	"singletable/cmd/internal/settings"
	"singletable/server"
)

// guardConfig is the configuration of the server's defences: where it listens, the bounds on
// GraphQL documents and caches, the rate limit, the capacity budget and the concurrency cap
// (docs/security.md).
type guardConfig struct {
	host            string
	limits          server.Limits
	tokens          int
	queryCacheBytes int
	apqCacheBytes   int
	rateRPS         float64
	rateBurst       int
	capacityRCU     float64
	maxConcurrent   int
	maxSubs         int
	maxSubsEach     int
	trustedRaw      string
	trusted         []netip.Prefix
}

// hostRE accepts a host name (IP addresses are checked with netip).
var hostRE = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$`)

// register declares the flags, each defaulting to its environment variable.
func (g *guardConfig) register(fs *flag.FlagSet, env settings.Env) {
	l := &g.limits
	fs.StringVar(&g.host, "host", env.Get("HOST"), "listen address; empty means every interface, as a container needs (env HOST; 127.0.0.1 for this machine only)")
	fs.IntVar(&l.QueryBytes, "max-query-bytes", env.Int("GRAPHQL_MAX_QUERY_BYTES", server.DefaultMaxQueryBytes), "largest GraphQL document in bytes, comments included (env GRAPHQL_MAX_QUERY_BYTES)")
	fs.IntVar(&g.tokens, "max-tokens", env.Int("GRAPHQL_MAX_TOKENS", server.DefaultParserTokenLimit), "most tokens in a GraphQL document (env GRAPHQL_MAX_TOKENS)")
	fs.IntVar(&l.Depth, "max-depth", env.Int("GRAPHQL_MAX_DEPTH", server.DefaultMaxDepth), "deepest nesting of fields (env GRAPHQL_MAX_DEPTH)")
	fs.IntVar(&l.Fields, "max-fields", env.Int("GRAPHQL_MAX_FIELDS", server.DefaultMaxFields), "most fields in a document, fragments counted where used (env GRAPHQL_MAX_FIELDS)")
	fs.IntVar(&l.Aliases, "max-aliases", env.Int("GRAPHQL_MAX_ALIASES", server.DefaultMaxAliases), "most aliased fields in a document (env GRAPHQL_MAX_ALIASES)")
	fs.IntVar(&l.Repeats, "max-field-repeats", env.Int("GRAPHQL_MAX_FIELD_REPEATS", server.DefaultMaxFieldRepeats), "most times one field may be selected in one selection set (env GRAPHQL_MAX_FIELD_REPEATS)")
	fs.IntVar(&g.queryCacheBytes, "query-cache-bytes", env.Int("GRAPHQL_QUERY_CACHE_BYTES", server.DefaultQueryCacheBytes), "memory for parsed queries, in bytes (env GRAPHQL_QUERY_CACHE_BYTES)")
	fs.IntVar(&g.apqCacheBytes, "apq-cache-bytes", env.Int("GRAPHQL_APQ_CACHE_BYTES", server.DefaultAPQCacheBytes), "memory for persisted queries, in bytes (env GRAPHQL_APQ_CACHE_BYTES)")
	fs.Float64Var(&g.rateRPS, "rate-limit-rps", env.Float("RATE_LIMIT_RPS", 50), "requests per second per client; 0 turns the limit off (env RATE_LIMIT_RPS)")
	fs.IntVar(&g.rateBurst, "rate-limit-burst", env.Int("RATE_LIMIT_BURST", 0), "burst per client; 0 means twice the rate (env RATE_LIMIT_BURST)")
	fs.Float64Var(&g.capacityRCU, "capacity-budget-rcu", env.Float("CAPACITY_BUDGET_RCU", server.DefaultCapacityBudgetRCU), "DynamoDB read capacity units per second per client, with a burst of 10 times that; 0 turns the budget off (env CAPACITY_BUDGET_RCU)")
	fs.IntVar(&g.maxConcurrent, "max-concurrent-operations", env.Int("MAX_CONCURRENT_OPERATIONS", server.DefaultMaxConcurrentOperations), "operations served at once; 0 means no cap (env MAX_CONCURRENT_OPERATIONS)")
	fs.IntVar(&g.maxSubs, "max-subscriptions", env.Int("MAX_SUBSCRIPTIONS", server.DefaultMaxSubscriptions), "subscriptions served at once by this instance; past it a subscription is UNAVAILABLE; 0 means no cap (env MAX_SUBSCRIPTIONS)")
	fs.IntVar(&g.maxSubsEach, "max-subscriptions-per-principal", env.Int("MAX_SUBSCRIPTIONS_PER_PRINCIPAL", server.DefaultMaxSubscriptionsPerPrincipal), "subscriptions one client holds at once on this instance; past it a subscription is RATE_LIMITED; 0 means no cap (env MAX_SUBSCRIPTIONS_PER_PRINCIPAL)")
	g.trustedRaw = env.Get("TRUSTED_PROXIES")
	fs.StringVar(&g.trustedRaw, "trusted-proxies", g.trustedRaw, "comma-separated proxy IPs and CIDRs whose X-Forwarded-For is believed (env TRUSTED_PROXIES)")
}

// validate checks the parsed values; every message names the variable and the flag.
func (g *guardConfig) validate(bad func(string, ...any)) {
	if g.host != "" {
		if _, err := netip.ParseAddr(g.host); err != nil && !hostRE.MatchString(g.host) {
			bad("HOST / -host: %q is not an IP address or host name", g.host)
		}
	}
	between := func(name string, v, lo, hi int) {
		if v < lo || v > hi {
			bad("%s: %d must be between %d and %d", name, v, lo, hi)
		}
	}
	l := g.limits
	between("GRAPHQL_MAX_QUERY_BYTES / -max-query-bytes", l.QueryBytes, 256, 1<<20)
	between("GRAPHQL_MAX_TOKENS / -max-tokens", g.tokens, 10, 1_000_000)
	between("GRAPHQL_MAX_DEPTH / -max-depth", l.Depth, 2, 100)
	between("GRAPHQL_MAX_FIELDS / -max-fields", l.Fields, 10, 100_000)
	between("GRAPHQL_MAX_ALIASES / -max-aliases", l.Aliases, 1, 100_000)
	between("GRAPHQL_MAX_FIELD_REPEATS / -max-field-repeats", l.Repeats, 1, 1000)
	between("GRAPHQL_QUERY_CACHE_BYTES / -query-cache-bytes", g.queryCacheBytes, 1<<20, 1<<34)
	between("GRAPHQL_APQ_CACHE_BYTES / -apq-cache-bytes", g.apqCacheBytes, 1<<20, 1<<34)
	if g.rateRPS < 0 || g.rateRPS > 1e6 || g.rateRPS != g.rateRPS {
		bad("RATE_LIMIT_RPS / -rate-limit-rps: %v must be between 0 (off) and 1000000", g.rateRPS)
	}
	between("RATE_LIMIT_BURST / -rate-limit-burst", g.rateBurst, 0, 1_000_000)
	if g.capacityRCU < 0 || g.capacityRCU > 1e6 || g.capacityRCU != g.capacityRCU {
		bad("CAPACITY_BUDGET_RCU / -capacity-budget-rcu: %v must be between 0 (off) and 1000000", g.capacityRCU)
	}
	between("MAX_CONCURRENT_OPERATIONS / -max-concurrent-operations", g.maxConcurrent, 0, 100_000)
	between("MAX_SUBSCRIPTIONS / -max-subscriptions", g.maxSubs, 0, 1_000_000)
	between("MAX_SUBSCRIPTIONS_PER_PRINCIPAL / -max-subscriptions-per-principal", g.maxSubsEach, 0, 1_000_000)
	trusted, err := server.ParseTrustedProxies(g.trustedRaw)
	if err != nil {
		bad("TRUSTED_PROXIES / -trusted-proxies: %v", err)
	}
	g.trusted = trusted
}

// apply copies the settings into the handler's configuration.
func (g *guardConfig) apply(c *server.Config) {
	c.Limits = g.limits
	c.ParserTokenLimit = g.tokens
	c.QueryCacheBytes = g.queryCacheBytes
	c.APQCacheBytes = g.apqCacheBytes
	c.RateLimitRPS = g.rateRPS
	c.RateLimitBurst = g.rateBurst
	c.CapacityBudgetRCU = g.capacityRCU
	c.MaxConcurrentOperations = g.maxConcurrent
	c.TrustedProxies = g.trusted
}
