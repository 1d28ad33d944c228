package repository

import (
	"strings"
	"testing"
)

// integrityProblems scans the test's own table and lists every item that outlived what it
// belongs to: a ticket without its reporter, a version without its ticket, a user, guard or
// relation whose object is gone (a customer's account rep, an employee's earlier job among them),
// an order item without its order, an object still marked as being
// removed, a sweep record left. Counters are checked by Recount (assertExact).
func integrityProblems(t *testing.T, r *Repo) []string {
	t.Helper()
	items := scanTable(t, r)
	keys := make(map[Key]bool, len(items))
	for _, item := range items {
		keys[Key{PK: StringAttr(item, AttrPK), SK: StringAttr(item, AttrSK)}] = true
	}
	var problems []string
	for _, item := range items {
		pk, sk, typ := StringAttr(item, AttrPK), StringAttr(item, AttrSK), StringAttr(item, AttrType)
		need := func(k Key) {
			if !keys[k] {
				problems = append(problems, typ+" "+pk+" "+sk+" outlived "+k.PK+" "+k.SK)
			}
		}
		if item[attrDeleting] != nil || typ == typeSweep {
			problems = append(problems, typ+" "+pk+" "+sk+" is still being removed")
		}
		switch typ {
		case typeUser:
			need(OrgKey(StringAttr(item, "orgId")))
		case typeUserEmail:
			need(userKey(strings.Split(pk, delim)[1], StringAttr(item, "userId")))
		case typeTicket:
			need(userKey(StringAttr(item, "orgId"), StringAttr(item, "reporterId")))
		case typeTicketVersion:
			need(ticketKey(StringAttr(item, "orgId"), StringAttr(item, "ticketId")))
		case typeRelation:
			need(empKey(StringAttr(item, "employeeId")))
			switch RelationType(StringAttr(item, "relation")) {
			case RelDepartment:
				need(deptKey(StringAttr(item, "targetId")))
			case RelWarehouse:
				need(warehouseKey(StringAttr(item, "targetId")))
			default:
				need(empKey(StringAttr(item, "targetId")))
			}
		case typeEmployee:
			need(deptKey(StringAttr(item, "departmentId")))
		case typeJobHistory:
			need(empKey(StringAttr(item, "employeeId")))
		case typeCustomer:
			if rep := StringAttr(item, attrAccountRep); rep != "" {
				need(empKey(rep))
			}
		case typeOrder, typeCustomerEmail:
			need(customerKey(StringAttr(item, "customerId")))
		case typeOrderItem:
			need(orderKey(StringAttr(item, "customerId"), StringAttr(item, "orderId")))
		case typeOrderIdempotency:
			need(orderKey(strings.Split(pk, delim)[1], StringAttr(item, "orderId")))
		}
	}
	return problems
}
