package repository

import (
	"strings"
)

// What every key shares: the table's attribute and index names, the delimiter and the escaping.
// Each item type's own keys (its prefixes, key builders and `type` name) are declared beside its
// entity, in its domain's model.go (repository/<domain>/model.go); the items that are not entities beside the code that
// writes them (sweep records in sweep.go, the seed marker in seed.go, the change log in
// repository/stream/changelog_keys.go). One table holds every entity, so each
// key starts with an entity prefix, and any user-supplied value inside a key is escaped (see esc)
// so that it can never produce another entity's key or fall inside another prefix's begins_with
// range.

// Attribute names of the table and its indexes.
const (
	AttrPK     = "PK"
	AttrSK     = "SK"
	AttrGSI1PK = "GSI1PK"
	attrGSI1SK = "GSI1SK"
	attrGSI2PK = "GSI2PK"
	attrGSI2SK = "GSI2SK"
	AttrGSI3PK = "GSI3PK"
	AttrGSI3SK = "GSI3SK"
	AttrType   = "type"
)

// Index names, declared once with the table in table.go.
const (
	// gsi1 is the overloaded "collections" index: a user's tickets (AP5) and, for the HR and
	// commerce domains, the inverted relationship index and other one-to-many collections.
	GSI1 = "GSI1"
	// gsi2 is the overloaded "entity type" index: one partition per listed entity type (AP7),
	// sorted by a per-type sort value (a name, or a hire date for AP13).
	GSI2 = "GSI2"
	// gsi3 is the write-sharded order-status index (AP20), overloaded with the employees by
	// name (AP30): the two never share a partition (ORDERSTATUS#… and EMPNAME#…).
	GSI3 = "GSI3"
)

// Key is the primary key of one item.
type Key struct {
	PK string
	SK string
}

const Delim = "#"

// esc makes a user-supplied value safe inside a key: '%' becomes "%25" and '#' becomes "%23".
// The result never contains the delimiter, so "a#b" as one value cannot be confused with the two
// segments "a" and "b", and a begins_with prefix that ends in a delimiter matches exactly one
// value of the segment before it.
func Escape(s string) string {
	if !strings.ContainsAny(s, "%#") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '%':
			b.WriteString("%25")
		case '#':
			b.WriteString("%23")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Join builds a key from segments that are already safe (prefixes, ids, escaped values).
func Join(parts ...string) string { return strings.Join(parts, Delim) }

// FoldKey is the form of a user-supplied value used where keys must compare case-insensitively
// (unique emails, sort-by-name indexes): trimmed, lower case, escaped.
func FoldKey(s string) string { return Escape(strings.ToLower(strings.TrimSpace(s))) }

// TypePK is the GSI2 partition that lists all entities of one type (AP7).
func TypePK(entityType string) string { return Join("TYPE", entityType) }

// NameSortKey sorts a listing by case-folded name, ties broken by id.
func NameSortKey(name, id string) string { return Join(FoldKey(name), id) }

// AttrMovedFrom marks an item a migration moved to its key (moveItem).
const AttrMovedFrom = "movedFrom"
