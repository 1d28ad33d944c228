package repository

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// patternRow is the pattern's row in the access-pattern table.
func (p AccessPattern) patternRow() string {
	code := func(s string) string { return "`" + s + "`" }
	how := "no call"
	if p.Operation != NoCall {
		how = string(p.Operation)
		if p.Index != "" {
			how += " " + p.Index
		}
		how += " " + code(p.KeyCondition())
		if p.Backward {
			how += ", backwards"
		}
		if p.Filter != "" {
			how += ", filter " + code(p.Filter)
		}
	}
	if p.Notes != "" {
		how += "; " + p.Notes
	}
	cells := []string{p.ID, p.What, code(p.Name), p.Fields, how, scalingWords[p.Calls]}
	return "| " + strings.Join(cells, " | ") + " |"
}

var scalingWords = map[Scaling]string{
	PerParent: "one per parent and page",
	PerShard:  "one per shard and page",
	PerMonth:  "one per month",
	PerLevel:  "⌈keys / 100⌉ per level",
}

// PatternTable renders the access-pattern table of docs/data-model.md: one row per declared
// pattern, by pattern number.
func PatternTable() string {
	rows := slices.Clone(patterns)
	slices.SortStableFunc(rows, func(a, b AccessPattern) int { return cmp.Compare(patternNumber(a.ID), patternNumber(b.ID)) })
	var b strings.Builder
	b.WriteString("| AP | what | read | GraphQL fields | how | calls |\n|---|---|---|---|---|---|\n")
	for _, p := range rows {
		b.WriteString(p.patternRow() + "\n")
	}
	return b.String()
}

// patternNumber is n of "APn" (0 for anything else).
func patternNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "AP"))
	return n
}
