package telemetry

import "github.com/prometheus/client_golang/prometheus"

// untrustedOutcomes are the outcomes of a document outside the trusted documents (the server's
// UntrustedServed, UntrustedBypassed, UntrustedRefused): each series exists from the start.
var untrustedOutcomes = []string{"served", "bypassed", "refused"}

func newUntrustedDocuments() *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Subsystem: "graphql", Name: "untrusted_documents_total",
		Help: "Documents outside the trusted documents (TRUSTED_DOCUMENTS), by outcome: served (mode log), bypassed (an admin's bypass header under enforce) or refused (enforce, or an id or hash the manifest does not hold).",
	}, []string{"outcome"})
	for _, o := range untrustedOutcomes {
		c.WithLabelValues(o)
	}
	return c
}

// UntrustedDocument counts one document outside the trusted documents, by outcome.
func (m *Metrics) UntrustedDocument(outcome string) {
	if m != nil {
		m.untrusted.WithLabelValues(outcome).Inc()
	}
}
