package telemetry

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// subscriptionMetrics are the series of the change feed: subscriptions and the table's stream.
// *Metrics implements changefeed.Observer with them (by its methods' shape: this package does not
// import the hub).
type subscriptionMetrics struct {
	subsOpen  prometheus.Gauge
	delivered prometheus.Counter
	dropped   prometheus.Counter
	records   prometheus.Counter
	lag       prometheus.Gauge
	lastRead  prometheus.Gauge
	outage    prometheus.Gauge
	outages   prometheus.Counter
	gaps      prometheus.Counter
	all       []prometheus.Collector
}

func newSubscriptionMetrics() subscriptionMetrics {
	s := subscriptionMetrics{
		subsOpen:  gauge("", "subscriptions_open", "GraphQL subscriptions open now."),
		delivered: counter("", "subscription_events_delivered_total", "Changes handed to subscriptions (one per subscription that received it)."),
		dropped:   counter("", "subscriptions_dropped_total", "Subscriptions ended because their client did not keep up (their buffer was full)."),
		records:   counter("", "stream_records_read_total", "Records read from the table's stream, entities or not."),
		lag:       gauge("", "stream_lag_seconds", "Age of the newest record the slowest shard has read (ApproximateCreationDateTime, whole seconds); 0 when every shard is caught up."),
		lastRead:  gauge("", "stream_last_read_timestamp_seconds", "Unix time of the last successful read of the table's stream."),
		outage:    gauge("", "stream_outage", "1 while the table's stream cannot be read (the reader retries), else 0."),
		outages:   counter("", "stream_outages_total", "Times the table's stream became unreadable."),
		gaps:      counter("", "stream_gaps_total", "Points where changes may have been missed: data trimmed before it was read, a shard gone, a reader restarted."),
	}
	s.all = []prometheus.Collector{s.subsOpen, s.delivered, s.dropped, s.records, s.lag, s.lastRead, s.outage, s.outages, s.gaps}
	return s
}

// SubscriptionsOpen sets the number of open subscriptions; it and the methods below make
// *Metrics a changefeed.Observer.
func (m *Metrics) SubscriptionsOpen(n int) {
	if m != nil {
		m.subs.subsOpen.Set(float64(n))
	}
}

// SubscriptionEventsDelivered counts changes handed to subscriptions.
func (m *Metrics) SubscriptionEventsDelivered(n int) {
	if m != nil {
		m.subs.delivered.Add(float64(n))
	}
}

// SubscriptionDropped counts a subscription ended by a full buffer.
func (m *Metrics) SubscriptionDropped() {
	if m != nil {
		m.subs.dropped.Inc()
	}
}

// StreamRead records a successful read of the stream.
func (m *Metrics) StreamRead(records int, lag time.Duration) {
	if m == nil {
		return
	}
	m.subs.records.Add(float64(records))
	m.subs.lag.Set(lag.Seconds())
	m.subs.lastRead.SetToCurrentTime()
}

// StreamOutage records the start (down) or end of an outage of the stream.
func (m *Metrics) StreamOutage(down bool) {
	if m == nil {
		return
	}
	if down {
		m.subs.outages.Inc()
		m.subs.outage.Set(1)
		return
	}
	m.subs.outage.Set(0)
}

// StreamGap counts a point where changes may have been missed.
func (m *Metrics) StreamGap() {
	if m != nil {
		m.subs.gaps.Inc()
	}
}
