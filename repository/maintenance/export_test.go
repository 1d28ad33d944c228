package maintenance

import "testing"

// IntegrityProblems lists the items of r's table that outlived their object (integrity_test.go).
func IntegrityProblems(t *testing.T, r *Maintenance) []string { return integrityProblems(t, r) }
