package auth

import (
	"slices"
	"strings"
)

// FieldMatrix is the field policy as documentation shows it (docs/auth.md, "Fields below the
// root"): for each type the policy narrows, each of its fields (fields, by type, as the schema
// declares them) and which roles read it. A test generates it from the schema and holds it
// against the document, so the policy and its description cannot disagree.
func FieldMatrix(fields map[string][]string) string {
	types := make([]string, 0, len(narrowedTypes))
	for t := range narrowedTypes {
		types = append(types, t)
	}
	slices.Sort(types)
	var b strings.Builder
	b.WriteString("| field |")
	for _, r := range Roles {
		b.WriteString(" " + string(r) + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(Roles)) + "\n")
	for _, t := range types {
		for _, f := range fields[t] {
			b.WriteString("| `" + t + "." + f + "` |")
			for _, r := range Roles {
				mark := " — |"
				if roleHolder(r).MayRead(t, f) {
					mark = " ✓ |"
				}
				b.WriteString(mark)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// roleHolder is a principal of role r alone, with the tenant claim its role needs.
func roleHolder(r Role) Principal {
	return Principal{Roles: []Role{r}, Org: "org", Customer: "customer"}
}
