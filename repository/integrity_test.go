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
		keys[Key{PK: stringAttr(item, attrPK), SK: stringAttr(item, attrSK)}] = true
	}
	var problems []string
	for _, item := range items {
		pk, sk, typ := stringAttr(item, attrPK), stringAttr(item, attrSK), stringAttr(item, attrType)
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
			need(orgKey(stringAttr(item, "orgId")))
		case typeUserEmail:
			need(userKey(strings.Split(pk, delim)[1], stringAttr(item, "userId")))
		case typeTicket:
			need(userKey(stringAttr(item, "orgId"), stringAttr(item, "reporterId")))
		case typeTicketVersion:
			need(ticketKey(stringAttr(item, "orgId"), stringAttr(item, "ticketId")))
		case typeRelation:
			need(empKey(stringAttr(item, "employeeId")))
			switch RelationType(stringAttr(item, "relation")) {
			case RelDepartment:
				need(deptKey(stringAttr(item, "targetId")))
			case RelWarehouse:
				need(warehouseKey(stringAttr(item, "targetId")))
			default:
				need(empKey(stringAttr(item, "targetId")))
			}
		case typeEmployee:
			need(deptKey(stringAttr(item, "departmentId")))
		case typeJobHistory:
			need(empKey(stringAttr(item, "employeeId")))
		case typeCustomer:
			if rep := stringAttr(item, attrAccountRep); rep != "" {
				need(empKey(rep))
			}
		case typeOrder, typeCustomerEmail:
			need(customerKey(stringAttr(item, "customerId")))
		case typeOrderItem:
			need(orderKey(stringAttr(item, "customerId"), stringAttr(item, "orderId")))
		case typeOrderIdempotency:
			need(orderKey(strings.Split(pk, delim)[1], stringAttr(item, "orderId")))
		}
	}
	return problems
}
