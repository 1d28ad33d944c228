package repository

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
func (d EntityDef[T, PT]) describe() []keyRow {
	var rows []keyRow
	for _, v := range d.Examples() {
		item, err := d.EncodeSharded(v, 1)
		if err != nil {
			panic(fmt.Sprintf("repository: example of %s: %v", d.Name, err))
		}
		k := d.Key(v)
		row := keyRow{Entity: d.Name, PK: d.placeholder(k.PK), SK: d.placeholder(k.SK)}
		if d.Indexes != nil {
			for _, ix := range d.Indexes(v, 1) {
				row.Indexes = append(row.Indexes, fmt.Sprintf("%s: %s / %s", ix.Index, d.placeholder(ix.PK), d.placeholder(ix.SK)))
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

func (d EntityDef[T, PT]) placeholder(key string) string {
	for from, to := range d.Placeholders {
		key = strings.ReplaceAll(key, from, to)
	}
	return key
}

// isKeyAttribute reports whether name is a key attribute of the table or one of its indexes, or
// the type attribute: the columns the key table shows apart from the attributes.
func isKeyAttribute(name string) bool {
	switch name {
	case AttrPK, AttrSK, AttrType, AttrGSI1PK, attrGSI1SK, attrGSI2PK, attrGSI2SK, AttrGSI3PK, AttrGSI3SK:
		return true
	}
	return false
}

// KeyTable renders every definition's keys as a Markdown table: the one place a reader sees the
// whole key design, generated from the definitions so that it cannot drift from them
// (repository/store's tests keep docs/data-model.md's copy current).
func KeyTable() string {
	var b strings.Builder
	b.WriteString("| item type | PK | SK | index keys (PK / SK) | attributes |\n")
	b.WriteString("|---|---|---|---|---|\n")
	cell := func(s string) string { return "`" + s + "`" }
	for _, d := range definitions {
		// every definition is an entity[T, PT], which describes itself (describe, above)
		for _, r := range d.(interface{ describe() []keyRow }).describe() {
			var ixs []string
			for _, ix := range r.Indexes {
				name, keys, _ := strings.Cut(ix, ": ")
				ixs = append(ixs, name+": "+cell(keys))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Entity, cell(r.PK), cell(r.SK),
				strings.Join(ixs, "<br>"), strings.Join(r.Attributes, ", "))
		}
	}
	for _, r := range itemRows() {
		fmt.Fprintf(&b, "| %s | %s | %s |  | %s |\n", r.Entity, cell(r.PK), cell(r.SK), strings.Join(r.Attributes, ", "))
	}
	return b.String()
}

// An itemExample is an item that is not an entity: it guards something unique (an email, an
// idempotency key), records that the sample data is loaded, or belongs to the change log. It is
// written only by the transactions that need it and read by key or as raw attributes, never
// decoded into an entity, so it has no definition; its key table row comes from the function that
// builds it, declared with DeclareItem beside it.
type itemExample struct {
	item         func() map[string]types.AttributeValue
	placeholders map[string]string
}

var itemExamples []itemExample

// DeclareItem adds an item that is not an entity to the key table: example builds one with
// placeholders for its key parts ("<orgId>"), and placeholders replace what the example cannot
// spell as one (a zero-padded number). It returns true, so a domain declares its items in a
// package-level var.
func DeclareItem(example func() map[string]types.AttributeValue, placeholders map[string]string) bool {
	itemExamples = append(itemExamples, itemExample{example, placeholders})
	return true
}

// itemRows are the key table's rows of the declared items.
func itemRows() []keyRow {
	rows := make([]keyRow, len(itemExamples))
	for i, ex := range itemExamples {
		item := ex.item()
		rows[i] = keyRow{Entity: StringAttr(item, AttrType), PK: StringAttr(item, AttrPK), SK: StringAttr(item, AttrSK)}
		for from, to := range ex.placeholders {
			rows[i].PK = strings.ReplaceAll(rows[i].PK, from, to)
			rows[i].SK = strings.ReplaceAll(rows[i].SK, from, to)
		}
		for name := range item {
			if !isKeyAttribute(name) {
				rows[i].Attributes = append(rows[i].Attributes, name)
			}
		}
		slices.Sort(rows[i].Attributes)
	}
	return rows
}
