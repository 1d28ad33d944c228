package main

import (
	"context"
	"fmt"
	"log"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"

	"singletable/repository/commerce"
	"singletable/repository/hr"
)

// The writes that keep counters, measured through the API with the added latency, and the deep
// trees read again with every counted list's totalCount selected.

// writeOp is one counted write: its mutation and, for each run, its variables (built before the
// run is timed). extra says what the counters add to the write's transaction.
type writeOp struct {
	name, query, extra string
	vars               func(ctx context.Context, i int) (map[string]any, error)
}

// writeResult is one writeOp measured.
type writeResult struct {
	op  writeOp
	res result
}

// writeOps are the counted writes, on the dataset's first parents (after every read is measured:
// they add to its collections). The pair of updateTicket rows differs only in the counters: a
// title alone moves none, a status moves the reporter's.
func (b *bench) writeOps() []writeOp {
	var seq atomic.Int64
	unique := func() int64 { return seq.Add(1) }
	return slices.Concat(b.saasWriteOps(unique), b.hrWriteOps(unique), b.commerceWriteOps(unique))
}

// saasWriteOps are the counted writes of users and tickets; unique numbers what must differ
// between runs.
func (b *bench) saasWriteOps(unique func() int64) []writeOp {
	org, user := b.d.orgs[0], b.d.users[b.d.orgs[0].ID][0]
	tk := b.d.tickets[user.ID][0]
	return []writeOp{
		{name: "createUser", extra: "none: the organization's userCount replaces the check that it exists",
			query: `mutation($o: ID!, $e: String!) { createUser(input: {organizationId: $o, name: "Bench", email: $e}) { id } }`,
			vars: func(context.Context, int) (map[string]any, error) {
				return map[string]any{"o": orgGID(org), "e": fmt.Sprintf("bench-%d@example.com", unique())}, nil
			}},
		{name: "createTicket", extra: "none: the reporter's openTickets replaces the check that it exists",
			query: `mutation($u: ID!) { createTicket(input: {reporterId: $u, title: "Bench", body: "b"}) { id } }`,
			vars:  func(context.Context, int) (map[string]any, error) { return map[string]any{"u": userGID(user)}, nil }},
		{name: "updateTicket, title only", extra: "none (no counter moves): the baseline of the next row",
			query: `mutation($t: ID!, $s: String!) { updateTicket(input: {id: $t, title: $s}) { version } }`,
			vars: func(_ context.Context, i int) (map[string]any, error) {
				return map[string]any{"t": ticketGID(tk), "s": fmt.Sprintf("Title %d", i)}, nil
			}},
		{name: "updateTicket, status", extra: "+1 item: the reporter's counters of both statuses",
			query: `mutation($t: ID!, $s: TicketStatus!) { updateTicket(input: {id: $t, status: $s}) { version } }`,
			vars: func(_ context.Context, i int) (map[string]any, error) {
				return map[string]any{"t": ticketGID(tk), "s": []string{"PENDING", "OPEN"}[i%2]}, nil
			}},
	}
}

// hrWriteOps are the counted writes of employees.
func (b *bench) hrWriteOps(unique func() int64) []writeOp {
	d := b.d
	dept, other := d.depts[0], d.depts[1]
	emp := d.employees[dept.ID][0]
	return []writeOp{
		{name: "hireEmployee", extra: "none: the department's employeeCount replaces its check",
			query: `mutation($d: ID!, $e: String!) { hireEmployee(input: {departmentId: $d, name: "Bench", email: $e, jobTitle: "Engineer"}) { id } }`,
			vars: func(context.Context, int) (map[string]any, error) {
				return map[string]any{"d": deptGID(dept), "e": fmt.Sprintf("hire-%d@example.com", unique())}, nil
			}},
		{name: "transferEmployee", extra: "+1 item: the employeeCount of the department left",
			query: `mutation($e: ID!, $d: ID!) { transferEmployee(input: {employeeId: $e, departmentId: $d}) { id } }`,
			vars: func(_ context.Context, i int) (map[string]any, error) {
				return map[string]any{"e": empGID(emp), "d": deptGID([]*hr.Department{other, dept}[i%2])}, nil
			}},
		{name: "assignManager", extra: "+1 item: the directReportCount of the previous manager",
			query: `mutation($e: ID!, $m: ID!) { assignManager(input: {employeeId: $e, managerId: $m}) { id } }`,
			vars: func(_ context.Context, i int) (map[string]any, error) {
				return map[string]any{"e": empGID(emp), "m": empGID(d.heads[1+i%2])}, nil
			}},
	}
}

// commerceWriteOps are the counted writes of orders.
func (b *bench) commerceWriteOps(unique func() int64) []writeOp {
	cust := b.d.customers[0]
	item := []map[string]any{{"sku": "SKU-1", "productName": "Widget", "quantity": 1, "unitPriceCents": 100}}
	return []writeOp{
		{name: "placeOrder", extra: "none: the customer's openOrders replaces the check that it exists",
			query: `mutation($c: ID!, $k: String!, $items: [OrderItemInput!]!) { placeOrder(input: {customerId: $c, idempotencyKey: $k, items: $items}) { id } }`,
			vars: func(context.Context, int) (map[string]any, error) {
				return map[string]any{"c": custGID(cust), "k": fmt.Sprintf("bench-%d", unique()), "items": item}, nil
			}},
		{name: "updateOrderStatus", extra: "+1 item: the customer's counters of both statuses",
			query: `mutation($o: ID!) { updateOrderStatus(input: {id: $o, status: SHIPPED}) { status } }`,
			vars: func(ctx context.Context, _ int) (map[string]any, error) {
				// Each run ships an order of its own, placed (without the added latency) before
				// the run is timed: a shipped order cannot be shipped again.
				o, _, err := b.seeder.PlaceOrder(ctx, cust.ID, []commerce.OrderLine{{SKU: "SKU-1", ProductName: "Widget", Quantity: 1, UnitPriceCents: 100}}, fmt.Sprintf("ship-%d", unique()))
				if err != nil {
					return nil, err
				}
				return map[string]any{"o": orderGID(o)}, nil
			}},
	}
}

// measureWrites measures every counted write, one at a time. It needs three departments (a
// transfer between two, managers from two others): breadth 3 at least.
func (b *bench) measureWrites(ctx context.Context, rep *report) error {
	if b.maxB < 3 {
		return nil
	}
	var err error
	rep.writes, err = b.measureWriteOps(ctx, b.writeOps())
	return err
}

// measureWriteOps measures writes, one at a time, sequentially.
func (b *bench) measureWriteOps(ctx context.Context, ops []writeOp) ([]writeResult, error) {
	var out []writeResult
	for _, w := range ops {
		log.Printf("write %s", w.name)
		r, err := measure(ctx, b.batched.varying(w.query, w.vars), b.cfg.budget, []int{1})
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", w.name, err)
		}
		out = append(out, writeResult{op: w, res: r})
	}
	return out, nil
}

// connectionArgs finds the page arguments of a connection field in a deep operation's document:
// totalCount goes right after them.
var connectionArgs = regexp.MustCompile(`\(first: \d+\) \{`)

// withTotalCount is a deep operation's document with totalCount selected on every connection.
func withTotalCount(query string) string {
	return connectionArgs.ReplaceAllStringFunc(query, func(m string) string { return m + " totalCount" })
}

// countedTree is a deep operation read with and without totalCount, at one breadth.
type countedTree struct {
	id            string
	without, with map[string]int
}

// measureCountedTrees reads each deep operation at the throughput breadth with totalCount on every
// connection, and without, and keeps the calls of both.
func (b *bench) measureCountedTrees(ctx context.Context, rep *report) error {
	br := min(b.cfg.throughputAt, b.maxB)
	for _, o := range deepOps {
		if o.uncounted {
			continue
		}
		vars := o.vars(b.d, br)
		without, err := b.batched.runner(o.query, vars)(ctx)
		if err != nil {
			return err
		}
		with, err := b.batched.runner(withTotalCount(o.query), vars)(ctx)
		if err != nil {
			return fmt.Errorf("%v with totalCount: %w", o, err)
		}
		rep.counted = append(rep.counted, countedTree{id: o.id, without: without.calls, with: with.calls})
	}
	return nil
}

// writeCountedTarget writes the target row on the deep trees with totalCount.
func (rep *report) writeCountedTarget(w func(string, ...any)) {
	if len(rep.counted) == 0 {
		return
	}
	ok := true
	var figs []string
	for _, c := range rep.counted {
		same := maps.Equal(c.with, c.without)
		ok = ok && same
		figs = append(figs, fmt.Sprintf("%s %s with, %s without", c.id, formatCalls(c.with), formatCalls(c.without)))
	}
	w("| the deep operations with every totalCount selected cost the calls of the same operations without, breadth %d | %s | %s |\n",
		min(rep.cfg.throughputAt, rep.d.breadth), metMark(ok), strings.Join(figs, "; "))
}

// writeTable writes the table of writes measured one at a time; extra heads the column of each
// write's extra.
func writeTable(w func(string, ...any), extra string, writes []writeResult) {
	w("| write | %s | calls | p50 ms | p95 ms | outside DynamoDB p50 ms |\n|---|---|---|---|---|---|\n", extra)
	for _, x := range writes {
		w("| %s | %s | %s | %s | %s | %s |\n", x.op.name, x.op.extra, callsCell(x.res), ms(x.res.p50), ms(x.res.p95), ms(x.res.outsideP50))
	}
}

// writeWrites writes the section on the counted writes.
func (rep *report) writeWrites(w func(string, ...any)) {
	if len(rep.writes) == 0 {
		return
	}
	w("## Writes and their counters\n\n")
	w("Each write that adds to a counted list, or moves an item of it between statuses, changes its parent's counters in its own transaction (docs/data-model.md, \"Counters on the parent item\"). Where the write checked that the parent exists, the counter's update takes the check's place; where it did not touch the parent, the transaction has one more item. The two `updateTicket` rows differ only in that item. Sequential, through the API, with the added latency; one `TransactWriteItems` each after its reads.\n\n")
	writeTable(w, "what the counters add to its transaction", rep.writes)
	w("\n")
}

// varying is a runner posting query with the variables next gives for each run (built before the
// run is timed).
func (w *httpWay) varying(query string, next func(ctx context.Context, i int) (map[string]any, error)) runner {
	var i atomic.Int64
	return func(ctx context.Context) (sample, error) {
		vars, err := next(ctx, int(i.Add(1)-1))
		if err != nil {
			return sample{}, err
		}
		return w.runner(query, vars)(ctx)
	}
}
