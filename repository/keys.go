package repository

import (
	"strconv"
	"strings"
	"time"
)

// Key formats. This file is the only place that knows how keys are spelled; everything else
// calls these builders. One table holds every entity, so each key starts with an
// entity prefix, and any user-supplied value inside a key is escaped (see esc) so that it can never
// produce another entity's key or fall inside another prefix's begins_with range.

// Attribute names of the table and its indexes.
const (
	attrPK     = "PK"
	attrSK     = "SK"
	attrGSI1PK = "GSI1PK"
	attrGSI1SK = "GSI1SK"
	attrGSI2PK = "GSI2PK"
	attrGSI2SK = "GSI2SK"
	attrGSI3PK = "GSI3PK"
	attrGSI3SK = "GSI3SK"
	attrType   = "type"
)

// Index names, declared once with the table in table.go.
const (
	// gsi1 is the overloaded "collections" index: a user's tickets (AP5) and, for the HR and
	// commerce domains, the inverted relationship index and other one-to-many collections.
	gsi1 = "GSI1"
	// gsi2 is the overloaded "entity type" index: one partition per listed entity type (AP7),
	// sorted by a per-type sort value (a name, or a hire date for AP13).
	gsi2 = "GSI2"
	// gsi3 is the write-sharded order-status index (AP20), overloaded with the employees by
	// name (AP30): the two never share a partition (ORDERSTATUS#… and EMPNAME#…).
	gsi3 = "GSI3"
)

// Item type names, stored in the `type` attribute of every item.
const (
	typeOrganization = "Organization"
	typeUser         = "User"
	typeUserEmail    = "UserEmail"
	typeTicket       = "Ticket"
	// typeTicketVersion is one immutable version of a ticket, in the ticket's own partition.
	typeTicketVersion = "TicketVersion"
	typeSeedMarker    = "SeedMarker"

	typeCustomer         = "Customer"
	typeCustomerEmail    = "CustomerEmail"
	typeOrder            = "Order"
	typeOrderItem        = "OrderItem"
	typeOrderIdempotency = "OrderIdempotency"
)

// Key is the primary key of one item.
type Key struct {
	PK string
	SK string
}

const delim = "#"

// esc makes a user-supplied value safe inside a key: '%' becomes "%25" and '#' becomes "%23".
// The result never contains the delimiter, so "a#b" as one value cannot be confused with the two
// segments "a" and "b", and a begins_with prefix that ends in a delimiter matches exactly one
// value of the segment before it.
func esc(s string) string {
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

// unesc reverses esc. ok is false for a string esc cannot have produced.
func unesc(s string) (string, bool) {
	if !strings.ContainsAny(s, "%#") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '#':
			return "", false
		case '%':
			if i+3 > len(s) {
				return "", false
			}
			switch s[i+1 : i+3] {
			case "25":
				b.WriteByte('%')
			case "23":
				b.WriteByte('#')
			default:
				return "", false
			}
			i += 2
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), true
}

// join builds a key from segments that are already safe (prefixes, ids, escaped values).
func join(parts ...string) string { return strings.Join(parts, delim) }

// foldKey is the form of a user-supplied value used where keys must compare case-insensitively
// (unique emails, sort-by-name indexes): trimmed, lower case, escaped.
func foldKey(s string) string { return esc(strings.ToLower(strings.TrimSpace(s))) }

// --- SaaS: Organization → Users → Tickets ---

func orgPK(org string) string { return join("ORG", org) }

// orgKey: the organization's own item sorts first in its collection (METADATA < USER).
func orgKey(org string) Key { return Key{PK: orgPK(org), SK: join("METADATA", org)} }

const userSKPrefix = "USER#"

func userKey(org, user string) Key { return Key{PK: orgPK(org), SK: userSKPrefix + user} }

// userCollectionPK is a user's item collection on GSI1: the user item and its tickets.
func userCollectionPK(org, user string) string { return join("ORG", org, "USER", user) }

// The user item's GSI1 sort key sorts after every ticket's ("USER#" > "TICKET#"), so a
// newest-first Query (ScanIndexForward=false) reads the user first and then its newest tickets.
func userGSI1SK(user string) string { return userSKPrefix + user }

const ticketSKPrefix = "TICKET#"

// ticketKey: a ticket's partition is its own, and the sort key of its item names the
// organization it belongs to. A lookup is therefore only ever made with the tenant: a key spelled
// with another organization finds nothing, exactly as for a ticket that does not exist, at the
// same cost (no read of a foreign ticket, no size of one to report).
func ticketKey(org, ticket string) Key {
	return Key{PK: ticketSKPrefix + ticket, SK: ticketOrgSKPrefix + org}
}

// ticketOrgSKPrefix starts the sort key of a ticket's item (ORG#<org>); begins_with on it finds
// the item of a ticket whose organization is not known (an ID handed out before IDs carried it).
const ticketOrgSKPrefix = "ORG#"

func ticketGSI1SK(ticket string) string { return ticketSKPrefix + ticket }

// ticketVersionPrefix starts the sort keys of a ticket's version items: VERSION#<org>#. The
// versions live in the ticket's own partition, next to its current item (which plays
// the part of a latest-version copy: it always equals the newest version item), so a ticket's history is one Query,
// begins_with(SK, VERSION#<org>#), read backwards for newest first (AP21). The prefix names the
// organization for the reason the current item's sort key does: a Query spelled with another
// organization finds nothing, exactly as for a ticket that does not exist.
func ticketVersionPrefix(org string) string { return "VERSION" + delim + org + delim }

// ticketVersionDigits is the width of a version number in its sort key: zero-padded, so that the
// keys sort in version order (up to maxTicketVersion).
const ticketVersionDigits = 10

// ticketVersionKey is the key of version v of a ticket of organization org.
func ticketVersionKey(org, ticket string, v int) Key {
	digits := strconv.Itoa(v)
	pad := strings.Repeat("0", max(0, ticketVersionDigits-len(digits)))
	return Key{PK: ticketSKPrefix + ticket, SK: ticketVersionPrefix(org) + pad + digits}
}

// emailGuardKey is the item that makes an email unique inside one organization. It lives in its
// own partition, not in the organization's collection, so that AP2's Query of the collection
// reads only the organization and its users.
func emailGuardKey(org, email string) Key {
	pk := join("USEREMAIL", org, foldKey(email))
	return Key{PK: pk, SK: "USEREMAIL"}
}

// typePK is the GSI2 partition that lists all entities of one type (AP7).
func typePK(entityType string) string { return join("TYPE", entityType) }

// nameSortKey sorts a listing by case-folded name, ties broken by id.
func nameSortKey(name, id string) string { return join(foldKey(name), id) }

// seedMarkerKey records that the sample dataset of a given version was loaded.
func seedMarkerKey(version string) Key { return Key{PK: "SEED", SK: join("VERSION", esc(version))} }

// --- Commerce: Customer → Orders → order items ---

func customerPK(customer string) string { return join("CUST", customer) }

// customerProfileSK is the sort key of the customer's own item. It sorts after every order and
// order item of the collection ("PROFILE" > "ORDER#…"), so a newest-first Query from the top of
// the collection reads the customer first and then its newest orders with their items (like the
// user item of AP5, which sorts last on GSI1).
const customerProfileSK = "PROFILE"

func customerKey(customer string) Key { return Key{PK: customerPK(customer), SK: customerProfileSK} }

const orderSKPrefix = "ORDER#"

// orderSK is an order's sort key in its customer's collection. Order ids are time-sortable, so
// the sort key orders a customer's orders by placement time (AP16).
func orderSK(order string) string { return orderSKPrefix + order }

func orderKey(customer, order string) Key { return Key{PK: customerPK(customer), SK: orderSK(order)} }

// orderItemKey is the key of line n (1-based) of an order: ORDER#<o>#ITEM#<nnn>. It sorts right
// after its order's own sort key and before the next newer order's, so read newest first an
// order's items come just before the order item itself (AP17 read together with AP16).
func orderItemKey(customer, order string, line int) Key {
	return Key{PK: customerPK(customer), SK: orderItemSK(order, line)}
}

// orderItemSK is the sort key of line n of an order, built with one concatenation.
func orderItemSK(order string, line int) string {
	pad, n := lineNumber(line)
	return orderSKPrefix + order + delim + "ITEM" + delim + pad + n
}

// lineNumber is n (a line number, 1 or more) with at least three digits ("007", as the zeros to
// put before n and n), so that lines sort in order up to 999. The caller builds the key with one
// concatenation, one allocation.
func lineNumber(n int) (pad, digits string) {
	digits = strconv.Itoa(n)
	return "00"[:max(0, 3-len(digits))], digits
}

// orderRangeEnd is the upper bound of the sort keys of order hi and its items: '~' sorts after
// '#' and after every character of an id.
func orderRangeEnd(hi string) string { return orderSK(hi) + "~" }

// customerOrdersPK is a customer's orders on GSI1, sorted by status and then id (so by date within
// a status), for a customer's orders with a status filter.
func customerOrdersPK(customer string) string { return join("CUST", customer, "ORDERS") }

func orderStatusGSI1SK(status OrderStatus, order string) string { return join(string(status), order) }

// orderStatusShardPK is one of the N partitions of a status on the write-sharded GSI3 (AP20,
// see commerce_read_status.go for why it is sharded); GSI3SK is the order id.
func orderStatusShardPK(status OrderStatus, shard int) string {
	return join("ORDERSTATUS", string(status), strconv.Itoa(shard))
}

// customerEmailGuardKey is the item that makes a customer's email unique (compared without
// regard to case), in a partition of its own.
func customerEmailGuardKey(email string) Key {
	return Key{PK: join("CUSTEMAIL", foldKey(email)), SK: "CUSTEMAIL"}
}

// orderIdempotencyKey is the guard item of one idempotency key of one customer: it holds the
// order the key placed. The key is client text, compared exactly (escaped, not case-folded).
func orderIdempotencyKey(customer, key string) Key {
	return Key{PK: join("IDEMPOTENCY", customer, esc(key)), SK: "IDEMPOTENCY"}
}

// --- HR: Department → Employees on relationship items, Location hierarchy ---

// Item types of the HR domain.
const (
	typeDepartment = "Department"
	typeEmployee   = "Employee"
	typeLocation   = "Location"
	// typeRelation is a relationship item: one per (employee, relation type), under the employee.
	typeRelation = "EmployeeRelation"
)

func deptPK(d string) string { return join("DEPT", d) }

// deptKey: a department is the root item of its own partition.
func deptKey(d string) Key {
	k := deptPK(d)
	return Key{PK: k, SK: k}
}

func empPK(e string) string { return join("EMP", e) }

// empKey is the employee's root item; its relationship items share the
// partition under REL# sort keys.
func empKey(e string) Key {
	k := empPK(e)
	return Key{PK: k, SK: k}
}

const relSKPrefix = "REL#"

// relationKey is the one relationship item of type rel under employee e. One key per (employee,
// type) is what makes "an employee belongs to exactly one department" (and has at most one
// manager and one mentor) a property of the key itself, not of application code.
func relationKey(e string, rel RelationType) Key {
	return Key{PK: empPK(e), SK: relationSK(rel)}
}

// relationSK is REL#<TYPE>; the known types' are constants, which cost no allocation.
func relationSK(rel RelationType) string {
	switch rel {
	case RelDepartment:
		return relSKPrefix + string(RelDepartment)
	case RelManager:
		return relSKPrefix + string(RelManager)
	case RelMentor:
		return relSKPrefix + string(RelMentor)
	case RelWarehouse:
		return relSKPrefix + string(RelWarehouse)
	}
	return relSKPrefix + string(rel)
}

// relationTargetPK is the partition key of the entity a relation of type rel points at. A new
// relation type is one more case here and one more SK value: never a new index, however many
// one-to-many relations an entity has.
func relationTargetPK(rel RelationType, target string) string {
	switch rel {
	case RelDepartment:
		return deptPK(target)
	case RelWarehouse:
		return warehousePK(target)
	default: // RelManager, RelMentor: employees
		return empPK(target)
	}
}

// relationGSI1PK inverts a relationship item on GSI1: all items of type rel pointing at target
// share the partition "<target's PK>#REL#<TYPE>" (DEPT#<d>#REL#DEPARTMENT, EMP#<m>#REL#MANAGER,
// EMP#<m>#REL#MENTOR), sorted by the employee (relationGSI1SK). That partition is AP9 and AP11.
func relationGSI1PK(rel RelationType, target string) string {
	return join(relationTargetPK(rel, target), "REL", string(rel))
}

func relationGSI1SK(e string) string { return empPK(e) }

// jobTitlePK is AP12's GSI1 partition: employees with one job title, compared without case.
func jobTitlePK(title string) string { return join("JOBTITLE", foldKey(title)) }

// employeeNamePK is AP30's GSI3 partition: the employees with one name, compared without case
// (trimmed, lower case, escaped like every value in a key).
func employeeNamePK(name string) string { return join("EMPNAME", foldKey(name)) }

// hireTimeLayout writes a hire time in UTC with a fixed width, so that the strings sort in time
// order (RFC 3339 with a variable fraction does not: "…05Z" > "…05.5Z").
const hireTimeLayout = "2006-01-02T15:04:05.000000000Z"

func hireTime(t time.Time) string { return t.UTC().Format(hireTimeLayout) }

// hireSortKey orders employees by hire time, ties broken by id (AP12's GSI1SK, AP13's GSI2SK).
// A bound "<since>" sorts before every key of that instant, so `GSI2SK >= <since>` includes it.
func hireSortKey(t time.Time, e string) string { return join(hireTime(t), e) }

// countryPK is a country's partition of locations (AP14). Keys are case-folded; the display
// values live in the item.
func countryPK(country string) string { return join("COUNTRY", foldKey(country)) }

// locationSK is the composite, hierarchical sort key <state>#<city>#<postalCode>#<id>: a
// begins_with on its leading segments selects a state, a city or a postal code. Each user-supplied segment is escaped, so no value can contain the delimiter.
func locationSK(state, city, postalCode, id string) string {
	return join(foldKey(state), foldKey(city), foldKey(postalCode), id)
}

func locationKey(country, state, city, postalCode, id string) Key {
	return Key{PK: countryPK(country), SK: locationSK(state, city, postalCode, id)}
}

// locationPrefix is the begins_with prefix of AP14 for the given leading segments (state; state
// and city; state, city and postal code). It always ends with the delimiter, so the prefix of
// "San Jose" cannot match "San Jose Heights", and an escaped segment cannot end early.
func locationPrefix(segments ...string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteString(foldKey(s))
		b.WriteString(delim)
	}
	return b.String()
}

// --- Catalog: products, warehouses, stock ---

// Item types of the catalog.
const (
	typeProduct    = "Product"
	typeProductSKU = "ProductSKU"
	typeWarehouse  = "Warehouse"
	typeInventory  = "Inventory"
)

func productPK(p string) string { return join("PRODUCT", p) }

// productKey: a product is the root item of its own partition; its stock shares it.
func productKey(p string) Key {
	k := productPK(p)
	return Key{PK: k, SK: k}
}

// inventorySKPrefix starts the sort keys of a product's stock items: begins_with on it lists the
// product's stock in every warehouse with one Query (AP24).
const inventorySKPrefix = "INV#"

// inventoryKey is the stock of product p in warehouse w, in the product's partition.
func inventoryKey(p, w string) Key { return Key{PK: productPK(p), SK: inventorySKPrefix + w} }

func warehousePK(w string) string { return join("WAREHOUSE", w) }

// warehouseKey: a warehouse is the root item of its own partition.
func warehouseKey(w string) Key {
	k := warehousePK(w)
	return Key{PK: k, SK: k}
}

// productSKUGuardKey is the item that makes a product's SKU unique (compared without regard to
// case), in a partition of its own.
func productSKUGuardKey(sku string) Key {
	return Key{PK: join("PRODUCTSKU", foldKey(sku)), SK: "PRODUCTSKU"}
}

// productOrderItemsPK is a product's order items on GSI1 (AP25): every order line that names the
// product, sorted by its sort key in the customer's collection (ORDER#<o>#ITEM#<nnn>), so by
// order time; read backwards, newest first.
func productOrderItemsPK(p string) string { return join("PRODUCT", p, "ORDERITEMS") }

// --- Account reps: customers and orders by rep, sales per rep and month ---

// typeRepSales is a rep's sales of one month.
const typeRepSales = "RepSales"

// repAccountsPK is a rep's customers on GSI1 (AP26), sorted by name like the customers' list.
func repAccountsPK(e string) string { return join("EMP", e, "ACCOUNTS") }

// repOrdersPK is the orders a rep handled on GSI2 (AP27), sorted by order id, so by time.
func repOrdersPK(e string) string { return join("EMP", e, "ORDERS") }

// repSalesPK is the partition of every rep's sales of one month (yyyy-mm, UTC): one Query per
// month answers a ranking over a range of months (AP28).
func repSalesPK(month string) string { return join("REPSALES", month) }

func repSalesKey(month, e string) Key { return Key{PK: repSalesPK(month), SK: empPK(e)} }

// salesMonth is the month (UTC) an order placed at t counts toward.
func salesMonth(t time.Time) string { return t.UTC().Format("2006-01") }

// typeJobHistory is one earlier job of an employee, in its partition.
const typeJobHistory = "JobHistory"

// jobHistorySKPrefix starts the sort keys of an employee's earlier jobs: JH#<id>, the id
// time-sortable, so begins_with lists them in the order they ended (AP29, read backwards).
const jobHistorySKPrefix = "JH#"

func jobHistoryKey(e, id string) Key { return Key{PK: empPK(e), SK: jobHistorySKPrefix + id} }
