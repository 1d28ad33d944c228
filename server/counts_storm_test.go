package server_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/repotest"
	"singletable/repository/saas"
)

// Storms of concurrent writes of every kind that moves a counter, on few objects so that they
// collide: 40 each of createTicket, updateTicket (a status), transferEmployee, assignManager,
// placeOrder and updateOrderStatus, 40 at a time, with and without every third DynamoDB call
// throttled. Each write succeeds or is refused with CONFLICT (a lost race, a refused order
// transition), nothing else; afterwards every counter equals a count of its collection: nothing
// counted twice, nothing lost.
func TestCountersUnderConcurrentWrites(t *testing.T) {
	for _, every := range []int{0, 3} {
		t.Run(fmt.Sprintf("throttle every %d", every), func(t *testing.T) {
			th := &repotest.Throttler{}
			a := newAPI(t, wholeLists, func(c *repository.Config) { c.WrapTransport = th.Wrap })
			writes := stormWrites(a)
			th.Throttle(every)
			var mu sync.Mutex
			codes := map[string]int{}
			runConcurrently(len(writes), 40, func(i int) {
				r := writes[i]()
				code := ""
				if len(r.Errors) > 0 {
					code, _ = r.Errors[0].Extensions["code"].(string)
				}
				mu.Lock()
				codes[code]++
				mu.Unlock()
			})
			th.Throttle(0)
			t.Logf("outcomes %v; %d of %d calls throttled", codes, th.Throttled(), th.Calls())
			if codes[""]+codes["CONFLICT"] != len(writes) || codes[""] < len(writes)/2 {
				t.Fatalf("outcomes %v: every write succeeds or gets CONFLICT, most succeed", codes)
			}
			if every > 0 && th.Throttled() < int64(len(writes)) {
				t.Fatalf("only %d calls throttled", th.Throttled())
			}
			if n := countsMatch(t, a.ok(countedTree, nil, nil).Data); n < 20 {
				t.Fatalf("%d counted lists checked", n)
			}
		})
	}
}

// stormWrites builds the storm's writes (in a shuffled order) on a dataset made for it: one
// organization of 3 users with 2 tickets each; 3 departments of 3 employees, 2 of them managers
// (who are never assigned a manager: no cycles); 3 customers with 2 orders each.
func stormWrites(a *api) []func() gqlResponse {
	rnd := rand.New(rand.NewPCG(18, 18))
	pick := func(n int) int { return rnd.IntN(n) }
	d := a.seedSaaS(1, 3, 2)
	users := d.users[d.orgs[0].ID]
	var tickets []*saas.Ticket
	for _, u := range users {
		tickets = append(tickets, d.tickets[u.ID]...)
	}
	f := a.hr()
	var depts []*hr.Department
	var staff []*hr.Employee
	for i := range 3 {
		depts = append(depts, f.department(fmt.Sprintf("Dept %d", i)))
		for j := range 3 {
			staff = append(staff, f.hire(depts[i], fmt.Sprintf("Staff %d-%d", i, j), hireOpts{}))
		}
	}
	managers, reports := staff[:2], staff[2:]
	c := a.seedCommerce(3, 2, 1)
	var orders []*commerce.Order
	for _, cu := range c.customers {
		orders = append(orders, c.orders[cu.ID]...)
	}
	ticketStatuses := []string{"OPEN", "PENDING", "CLOSED"}
	orderStatuses := []string{"SHIPPED", "DELIVERED", "CANCELLED"}
	var writes []func() gqlResponse
	for i := range 40 {
		u, tk := users[pick(len(users))], tickets[pick(len(tickets))]
		e, dept, m := reports[pick(len(reports))], depts[pick(len(depts))], managers[pick(len(managers))]
		cu, o := c.customers[pick(len(c.customers))], orders[pick(len(orders))]
		ts, os := ticketStatuses[pick(3)], orderStatuses[pick(3)]
		writes = append(writes,
			func() gqlResponse {
				return a.query(`mutation($u: ID!) { createTicket(input: {reporterId: $u, title: "Storm", body: "b"}) { id } }`, map[string]any{"u": userID(u)})
			},
			func() gqlResponse {
				return a.query(`mutation($t: ID!, $s: TicketStatus!) { updateTicket(input: {id: $t, status: $s}) { id } }`, map[string]any{"t": ticketID(tk), "s": ts})
			},
			func() gqlResponse {
				return a.query(transferMutation, map[string]any{"e": employeeID(e), "d": departmentID(dept)})
			},
			func() gqlResponse {
				return a.query(managerMutation, map[string]any{"e": employeeID(e), "m": employeeID(m)})
			},
			func() gqlResponse {
				return a.query(placeOrderMutation, map[string]any{"c": customerID(cu), "key": fmt.Sprintf("storm-%d", i), "items": itemInputs(1)})
			},
			func() gqlResponse {
				return a.query(`mutation($o: ID!, $s: OrderStatus!) { updateOrderStatus(input: {id: $o, status: $s}) { id } }`, map[string]any{"o": orderID(o), "s": os})
			},
		)
	}
	rnd.Shuffle(len(writes), func(i, j int) { writes[i], writes[j] = writes[j], writes[i] })
	return writes
}
