package repository

import (
	"fmt"
	"slices"
	"strings"
	"time"

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
	for _, r := range guardRows() {
		fmt.Fprintf(&b, "| %s | %s | %s |  | %s |\n", r.Entity, cell(r.PK), cell(r.SK), strings.Join(r.Attributes, ", "))
	}
	return b.String()
}

// guardRows are the items that are not entities: each guards something unique (an email, an
// idempotency key) or records that the sample data is loaded. They are written only by the
// transactions that need them and read only by key, never decoded into an entity, so they have
// no definition; their rows come from the functions that build them.
func guardRows() []keyRow {
	marker := seedMarkerKey("<version>").attributes()
	marker[attrType] = s(typeSeedMarker)
	items := []map[string]types.AttributeValue{
		emailGuardItem(&User{ID: "<userId>", OrgID: "<orgId>", Email: "<email>"}),
		customerEmailGuardItem(&Customer{ID: "<customerId>", Email: "<email>"}),
		productSKUGuardItem(&Product{ID: "<productId>", SKU: "<sku>"}),
		idempotencyGuardItem(&Order{ID: "<orderId>", CustomerID: "<customerId>", IdempotencyKey: "<key>"}, "<hash>"),
		marker,
		changeLogItem("<scope>", &Change{Kind: ChangeUpdated, Sequence: "<sequence>", Shard: "<shard>",
			newItem: map[string]types.AttributeValue{}, oldItem: map[string]types.AttributeValue{}}, time.Hour),
		logCheckpointItem("<shardId>", logMark{seq: "<sequence>", from: "<sequence>", first: 1, at: time.UnixMilli(1)}, 0),
		logStartItem("<shardId>", time.UnixMilli(1), 0),
		logHeadItem(1),
	}
	rows := make([]keyRow, len(items))
	for i, item := range items {
		rows[i] = keyRow{Entity: stringAttr(item, attrType), PK: stringAttr(item, attrPK), SK: stringAttr(item, attrSK)}
		if rows[i].Entity == typeChangeLog {
			rows[i].SK = positionPrefix + "<position, zero-padded to 20 digits>"
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
