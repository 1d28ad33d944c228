// Package telemetry holds the server's Prometheus metrics and its OpenTelemetry set-up. The layers
// below the server (repository, loaders, changefeed) know nothing of either: they expose plain
// observer functions (repository.CallObserver, loaders.BatchObserver) and interfaces
// (changefeed.Observer) that a Metrics value provides.
package telemetry

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every series of the server.
const Namespace = "singletable"

// Metrics are the server's Prometheus series, on a registry of their own (so that tests can make
// as many as they like). A nil *Metrics is valid: every method does nothing, so code that reports
// to it needs no check.
type Metrics struct {
	reg         *prometheus.Registry
	opDuration  *prometheus.HistogramVec
	inFlight    prometheus.Gauge
	ddbCalls    *prometheus.CounterVec
	ddbErrors   *prometheus.CounterVec
	ddbCapacity *prometheus.CounterVec
	ddbDuration *prometheus.HistogramVec
	batchSize   *prometheus.HistogramVec
	rateLimited *prometheus.CounterVec
	overCap     prometheus.Counter
	untrusted   *prometheus.CounterVec
	// sharedFallbacks counts requests answered without the fleet's Redis, by store.
	sharedFallbacks *prometheus.CounterVec
	opNames         *labelSet
	subs            subscriptionMetrics
}

// maxOperationNames bounds the operation label: operation names come from clients, and each new
// one would otherwise create series without end. Past the bound, new names count as "other".
const maxOperationNames = 200

// NewMetrics registers the server's series, and the Go runtime and process collectors, on a new
// registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		opDuration: histogramVec("graphql", "operation_duration_seconds",
			"Time to answer a GraphQL operation, by operation name and outcome (ok, or the first error's code).",
			[]float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}, "operation", "outcome"),
		inFlight: gauge("graphql", "operations_in_flight", "GraphQL operations being answered now."),
		ddbCalls: counterVec("dynamodb", "calls_total",
			"DynamoDB API calls, by operation (SDK retries of one call count once).", "operation"),
		ddbErrors: counterVec("dynamodb", "call_errors_total",
			"DynamoDB API calls that failed after the SDK's retries, by operation.", "operation"),
		ddbCapacity: counterVec("dynamodb", "consumed_capacity_units_total",
			"Capacity units DynamoDB reported as consumed (ReturnConsumedCapacity=TOTAL), by operation.", "operation"),
		ddbDuration: histogramVec("dynamodb", "call_duration_seconds",
			"Time of one DynamoDB API call, SDK retries included, by operation.",
			[]float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}, "operation"),
		batchSize: histogramVec("dataloader", "batch_size",
			"Keys (or lists) sent together in one dataloader batch, by loader.",
			[]float64{1, 2, 5, 10, 20, 50, 100, 200, 500}, "loader"),
		rateLimited: counterVec("http", "rate_limited_total",
			"Requests refused with 429, by reason: rate (the principal was over RATE_LIMIT_RPS) or capacity (over CAPACITY_BUDGET_RCU).",
			"reason", "rate", "capacity"),
		overCap: counter("http", "over_capacity_total",
			"Requests refused with 503 because MAX_CONCURRENT_OPERATIONS operations were running."),
		sharedFallbacks: counterVec("fleet", "shared_fallbacks_total",
			"Requests answered from the instance's own state because the fleet's Redis could not be reached, by store: rate, capacity, persisted_queries.",
			"store", "rate", "capacity", "persisted_queries"),
		untrusted: counterVec("graphql", "untrusted_documents_total",
			"Documents outside the trusted documents (TRUSTED_DOCUMENTS), by outcome: served (mode log), bypassed (an admin's bypass header under enforce) or refused (enforce, or an id or hash the manifest does not hold).",
			"outcome", untrustedOutcomes...),
		opNames: newLabelSet(maxOperationNames),
		subs:    newSubscriptionMetrics(),
	}
	m.reg.MustRegister(m.opDuration, m.inFlight, m.ddbCalls, m.ddbErrors, m.ddbCapacity, m.ddbDuration,
		m.batchSize, m.rateLimited, m.overCap, m.untrusted, m.sharedFallbacks,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(m.subs.all...)
	return m
}

// Registry returns the registry the series live on.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the series in the Prometheus text format (for /metrics on the admin port).
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// OperationStarted counts an operation in flight; call OperationFinished when it is answered.
func (m *Metrics) OperationStarted() {
	if m != nil {
		m.inFlight.Inc()
	}
}

// OperationFinished records an answered operation: its name ("" for an anonymous one), its
// outcome ("ok", or an error code) and how long it took.
func (m *Metrics) OperationFinished(operation, outcome string, took time.Duration) {
	if m == nil {
		return
	}
	m.inFlight.Dec()
	m.opDuration.WithLabelValues(m.opNames.label(operation), outcome).Observe(took.Seconds())
}

// DynamoDBCall records one DynamoDB call; it is a repository.CallObserver.
func (m *Metrics) DynamoDBCall(operation string, capacityUnits float64, took time.Duration, failed bool) {
	if m == nil {
		return
	}
	m.ddbCalls.WithLabelValues(operation).Inc()
	m.ddbCapacity.WithLabelValues(operation).Add(capacityUnits)
	m.ddbDuration.WithLabelValues(operation).Observe(took.Seconds())
	if failed {
		m.ddbErrors.WithLabelValues(operation).Inc()
	}
}

// LoaderBatch records the size of one dataloader batch; it is a loaders.BatchObserver.
func (m *Metrics) LoaderBatch(loader string, size int) {
	if m != nil {
		m.batchSize.WithLabelValues(loader).Observe(float64(size))
	}
}

// RateLimited counts one request refused with HTTP 429 RATE_LIMITED, for reason "rate" (the
// rate limiter) or "capacity" (the capacity budget).
func (m *Metrics) RateLimited(reason string) {
	if m != nil {
		m.rateLimited.WithLabelValues(reason).Inc()
	}
}

// SharedFallback counts one request answered from the instance's own state because the fleet's
// shared store (rate, capacity or persisted_queries) could not be reached.
func (m *Metrics) SharedFallback(store string) {
	if m != nil {
		m.sharedFallbacks.WithLabelValues(store).Inc()
	}
}

// OverCapacity counts one request refused by the concurrency cap (HTTP 503, UNAVAILABLE).
func (m *Metrics) OverCapacity() {
	if m != nil {
		m.overCap.Inc()
	}
}
