package model

// MissingParts names the unset parts of a descriptor (the test of the registry lists them).
func MissingParts(d AnyNode) []string { return d.missing() }
