package telemetry

import "github.com/prometheus/client_golang/prometheus"

// The constructors of the server's series: every series is in Namespace, in a subsystem ("" for
// none) that names what it measures, with help text for the /metrics page.

func gauge(subsystem, name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Subsystem: subsystem, Name: name, Help: help})
}

func counter(subsystem, name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Subsystem: subsystem, Name: name, Help: help})
}

// counterVec is a counter by labels; each of seeded's values of the first label exists from the
// start, at 0, so that a rate over it is defined before the first event.
func counterVec(subsystem, name, help string, label string, seeded ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: subsystem, Name: name, Help: help}, []string{label})
	for _, v := range seeded {
		c.WithLabelValues(v)
	}
	return c
}

func histogramVec(subsystem, name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Subsystem: subsystem, Name: name, Help: help, Buckets: buckets}, labels)
}
