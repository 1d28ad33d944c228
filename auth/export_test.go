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
