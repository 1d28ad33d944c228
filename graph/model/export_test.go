package model

// MissingParts names the unset parts of a descriptor (the test of the registry lists them).
func MissingParts(d AnyNode) []string {
	return d.(interface{ missing() []string }).missing()
}

// missing names the descriptor's unset parts.
func (d NodeType[E, M, R]) missing() []string {
	var out []string
	for name, set := range map[string]bool{
		"Name": d.Name != "", "Kind": d.Kind != "", "Parts": len(d.Parts) > 0, "PartsOf": d.PartsOf != nil,
		"Ref": d.Ref != nil, "Key": d.Key != nil, "Scope": d.Scope != nil, "Wrap": d.Wrap != nil,
	} {
		if !set {
			out = append(out, name)
		}
	}
	return out
}
