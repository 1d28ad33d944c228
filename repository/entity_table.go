package repository

import (
	"fmt"
	"slices"
	"strings"
)

// keyRow is one line of the key table: how one item type (or one shape of it) is keyed, and the
// attributes it carries besides its keys.
type keyRow struct {
	Entity     string
	PK, SK     string
	Indexes    []string // "GSI1: <pk> / <sk>", in index order
	Attributes []string // sorted
}

// describe renders the keys of the definition's examples.
func (d entity[T, PT]) describe() []keyRow {
	var rows []keyRow
	for _, v := range d.examples() {
		item, err := d.encodeSharded(v, 1)
		if err != nil {
			panic(fmt.Sprintf("repository: example of %s: %v", d.name, err))
		}
		k := d.key(v)
		row := keyRow{Entity: d.name, PK: d.placeholder(k.PK), SK: d.placeholder(k.SK)}
		if d.indexes != nil {
			for _, ix := range d.indexes(v, 1) {
				row.Indexes = append(row.Indexes, fmt.Sprintf("%s: %s / %s", ix.index, d.placeholder(ix.pk), d.placeholder(ix.sk)))
			}
		}
		for name := range item {
			if !isKeyAttribute(name) {
				row.Attributes = append(row.Attributes, name)
			}
		}
		slices.Sort(row.Attributes)
		rows = append(rows, row)
	}
	return rows
}

func (d entity[T, PT]) placeholder(key string) string {
	for from, to := range d.placeholders {
		key = strings.ReplaceAll(key, from, to)
	}
	return key
}

// isKeyAttribute reports whether name is a key attribute of the table or one of its indexes, or
// the type attribute: the columns the key table shows apart from the attributes.
func isKeyAttribute(name string) bool {
	switch name {
	case attrPK, attrSK, attrType, attrGSI1PK, attrGSI1SK, attrGSI2PK, attrGSI2SK, attrGSI3PK, attrGSI3SK:
		return true
	}
	return false
}

// keyTable renders every definition's keys as a Markdown table: the one place a reader sees the
// whole key design, generated from the definitions so that it cannot drift from them.
func keyTable() string {
	var b strings.Builder
	b.WriteString("| item type | PK | SK | index keys (PK / SK) | attributes |\n")
	b.WriteString("|---|---|---|---|---|\n")
	cell := func(s string) string { return "`" + s + "`" }
	for _, d := range definitions {
		for _, r := range d.describe() {
			var ixs []string
			for _, ix := range r.Indexes {
				name, keys, _ := strings.Cut(ix, ": ")
				ixs = append(ixs, name+": "+cell(keys))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Entity, cell(r.PK), cell(r.SK),
				strings.Join(ixs, "<br>"), strings.Join(r.Attributes, ", "))
		}
	}
	return b.String()
}
