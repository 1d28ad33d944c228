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
		opDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "graphql", Name: "operation_duration_seconds",
			Help:    "Time to answer a GraphQL operation, by operation name and outcome (ok, or the first error's code).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"operation", "outcome"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: Namespace, Subsystem: "graphql", Name: "operations_in_flight",
			Help: "GraphQL operations being answered now.",
		}),
		ddbCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "dynamodb", Name: "calls_total",
			Help: "DynamoDB API calls, by operation (SDK retries of one call count once).",
		}, []string{"operation"}),
		ddbErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "dynamodb", Name: "call_errors_total",
			Help: "DynamoDB API calls that failed after the SDK's retries, by operation.",
		}, []string{"operation"}),
		ddbCapacity: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "dynamodb", Name: "consumed_capacity_units_total",
			Help: "Capacity units DynamoDB reported as consumed (ReturnConsumedCapacity=TOTAL), by operation.",
		}, []string{"operation"}),
		ddbDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "dynamodb", Name: "call_duration_seconds",
			Help:    "Time of one DynamoDB API call, SDK retries included, by operation.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"operation"}),
		batchSize: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "dataloader", Name: "batch_size",
			Help:    "Keys (or lists) sent together in one dataloader batch, by loader.",
			Buckets: []float64{1, 2, 5, 10, 20, 50, 100, 200, 500},
		}, []string{"loader"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "http", Name: "rate_limited_total",
			Help: "Requests refused with 429, by reason: rate (the principal was over RATE_LIMIT_RPS) or capacity (over CAPACITY_BUDGET_RCU).",
		}, []string{"reason"}),
		overCap: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "http", Name: "over_capacity_total",
			Help: "Requests refused with 503 because MAX_CONCURRENT_OPERATIONS operations were running.",
		}),
		sharedFallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "fleet", Name: "shared_fallbacks_total",
			Help: "Requests answered from the instance's own state because the fleet's Redis could not be reached, by store: rate, capacity, persisted_queries.",
		}, []string{"store"}),
		untrusted: newUntrustedDocuments(),
		opNames:   newLabelSet(maxOperationNames),
		subs:      newSubscriptionMetrics(),
	}
	m.reg.MustRegister(m.opDuration, m.inFlight, m.ddbCalls, m.ddbErrors, m.ddbCapacity, m.ddbDuration,
		m.batchSize, m.rateLimited, m.overCap, m.untrusted, m.sharedFallbacks,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(m.subs.all...)
	for _, reason := range []string{"rate", "capacity"} {
		m.rateLimited.WithLabelValues(reason) // both series exist from the start, at 0
	}
	for _, store := range []string{"rate", "capacity", "persisted_queries"} {
		m.sharedFallbacks.WithLabelValues(store)
	}
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
