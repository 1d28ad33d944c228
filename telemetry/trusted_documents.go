package telemetry

// untrustedOutcomes are the outcomes of a document outside the trusted documents (the server's
// UntrustedServed, UntrustedBypassed, UntrustedRefused): each series exists from the start.
var untrustedOutcomes = []string{"served", "bypassed", "refused"}

// UntrustedDocument counts one document outside the trusted documents, by outcome.
func (m *Metrics) UntrustedDocument(outcome string) {
	if m != nil {
		m.untrusted.WithLabelValues(outcome).Inc()
	}
}
