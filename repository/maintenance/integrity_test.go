package maintenance

import (
	"strings"
	"testing"

	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// integrityProblems scans the test's own table and lists every item that outlived what it
// belongs to: a ticket without its reporter, a version without its ticket, a user, guard or
// relation whose object is gone (a customer's account rep, an employee's earlier job among them),
// an order item without its order, an object still marked as being
// removed, a sweep record left. Counters are checked by Recount (assertExact).
func integrityProblems(t *testing.T, r *Maintenance) []string {
	t.Helper()
	items := scanTable(t, r)
	keys := make(map[repository.Key]bool, len(items))
	for _, item := range items {
		keys[repository.Key{PK: repository.StringAttr(item, repository.AttrPK), SK: repository.StringAttr(item, repository.AttrSK)}] = true
	}
	var problems []string
	for _, item := range items {
		pk, sk, typ := repository.StringAttr(item, repository.AttrPK), repository.StringAttr(item, repository.AttrSK), repository.StringAttr(item, repository.AttrType)
		need := func(k repository.Key) {
			if !keys[k] {
				problems = append(problems, typ+" "+pk+" "+sk+" outlived "+k.PK+" "+k.SK)
			}
		}
		if item[repository.AttrDeleting] != nil || typ == repository.TypeSweep {
			problems = append(problems, typ+" "+pk+" "+sk+" is still being removed")
		}
		switch typ {
		case saas.TypeUser:
			need(saas.OrgKey(repository.StringAttr(item, "orgId")))
		case saas.TypeUserEmail:
			need(saas.UserKeyOf(strings.Split(pk, repository.Delim)[1], repository.StringAttr(item, "userId")))
		case saas.TypeTicket:
			need(saas.UserKeyOf(repository.StringAttr(item, "orgId"), repository.StringAttr(item, "reporterId")))
		case saas.TypeTicketVersion:
			need(saas.TicketKeyOf(repository.StringAttr(item, "orgId"), repository.StringAttr(item, "ticketId")))
		case hr.TypeRelation:
			need(hr.EmpKey(repository.StringAttr(item, "employeeId")))
			switch hr.RelationType(repository.StringAttr(item, "relation")) {
			case hr.RelDepartment:
				need(hr.DeptKey(repository.StringAttr(item, "targetId")))
			case hr.RelWarehouse:
				need(catalog.WarehouseKeyOf(repository.StringAttr(item, "targetId")))
			default:
				need(hr.EmpKey(repository.StringAttr(item, "targetId")))
			}
		case hr.TypeEmployee:
			need(hr.DeptKey(repository.StringAttr(item, "departmentId")))
		case hr.TypeJobHistory:
			need(hr.EmpKey(repository.StringAttr(item, "employeeId")))
		case commerce.TypeCustomer:
			if rep := repository.StringAttr(item, commerce.AttrAccountRep); rep != "" {
				need(hr.EmpKey(rep))
			}
		case commerce.TypeOrder, commerce.TypeCustomerEmail:
			need(commerce.CustomerKeyOf(repository.StringAttr(item, "customerId")))
		case commerce.TypeOrderItem:
			need(commerce.OrderKeyOf(repository.StringAttr(item, "customerId"), repository.StringAttr(item, "orderId")))
		case commerce.TypeOrderIdempotency:
			need(commerce.OrderKeyOf(strings.Split(pk, repository.Delim)[1], repository.StringAttr(item, "orderId")))
		}
	}
	return problems
}
