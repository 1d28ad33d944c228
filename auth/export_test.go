package auth

// PolicyNames are the root fields rootPolicy names ("Query.node", …), for the test that holds them
// against the schema (an external test: the schema's package imports this one through the model).
func PolicyNames() []string {
	names := make([]string, 0, len(rootPolicy))
	for k := range rootPolicy {
		names = append(names, k)
	}
	return names
}

// HasPolicy reports whether the root field object.field ("Query", "node") has a policy.
func HasPolicy(object, field string) bool {
	_, ok := rootPolicy[object+"."+field]
	return ok
}
