package main

import (
	"context"
	"fmt"
	"log"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

// The corrections and removals, measured as the counted writes are (writes.go): each run corrects
// or removes an object of its own, made without the added latency before the run is timed. Then
// the sweep of an organization of sweepTickets tickets, timed and metered.

// onlyLifecycle is the -only value that runs the corrections, removals and the sweep alone.
const onlyLifecycle = "lifecycle"

// sweepTickets is the size of the organization the sweep removes (a tenth with BENCH_QUICK).
const sweepTickets = 10_000

// sweepResult is the sweep of one organization measured.
type sweepResult struct {
	tickets int
	took    time.Duration
	usage   repository.Usage
}

// lifecycleOps are the corrections and removals.
func (b *bench) lifecycleOps() []writeOp {
	d, s := b.d, b.seeder
	org, user := d.orgs[0], d.users[d.orgs[0].ID][0]
	var seq atomic.Int64
	unique := func() string { return fmt.Sprint(seq.Add(1)) }
	return []writeOp{
		{name: "updateUser, email", extra: "the new email guard in, the old one out",
			query: `mutation($u: ID!, $e: String!) { updateUser(input: {id: $u, email: $e}) { id } }`,
			vars: func(context.Context, int) (map[string]any, error) {
				return map[string]any{"u": userGID(user), "e": "moved-" + unique() + "@example.com"}, nil
			}},
		{name: "deleteTicket", extra: "the ticket, its version, the reporter's counter",
			query: `mutation($t: ID!) { deleteTicket(input: {id: $t}) { deletedId } }`,
			vars: func(ctx context.Context, _ int) (map[string]any, error) {
				t, err := s.CreateTicket(ctx, org.ID, user.ID, "Gone", "b")
				return map[string]any{"t": ticketGID(t)}, err
			}},
		{name: "deleteUser, cascade of 10 tickets", extra: "a round of tickets, then the user, its guard, the organization's count",
			query: `mutation($u: ID!) { deleteUser(input: {id: $u, cascade: true}) { deletedId } }`,
			vars: func(ctx context.Context, _ int) (map[string]any, error) {
				u, err := s.CreateUser(ctx, org.ID, "Gone", "gone-"+unique()+"@example.com")
				for range 10 {
					if err == nil {
						_, err = s.CreateTicket(ctx, org.ID, u.ID, "Gone", "b")
					}
				}
				return map[string]any{"u": userGID(u)}, err
			}},
		{name: "removeEmployee", extra: "the employee, its relations, the department's and manager's counts",
			query: `mutation($e: ID!) { removeEmployee(input: {id: $e}) { deletedId } }`,
			vars: func(ctx context.Context, _ int) (map[string]any, error) {
				e, _, err := s.HireEmployee(ctx, hr.HireInput{DepartmentID: d.depts[0].ID, Name: "Gone", Email: "leaver-" + unique() + "@example.com", JobTitle: "Engineer", ManagerID: &d.heads[0].ID})
				return map[string]any{"e": empGID(e)}, err
			}},
		{name: "deleteCustomer, 3 orders", extra: "the profile, orders, lines, guards",
			query: `mutation($c: ID!) { deleteCustomer(input: {id: $c}) { deletedId } }`,
			vars: func(ctx context.Context, _ int) (map[string]any, error) {
				n := unique()
				c, err := s.CreateCustomer(ctx, "Gone", "erased-"+n+"@example.com", nil)
				for i := range 3 {
					if err == nil {
						_, _, err = s.PlaceOrder(ctx, c.ID, []commerce.OrderLine{{SKU: "S", ProductName: "P", Quantity: 1, UnitPriceCents: 1}}, fmt.Sprintf("erase-%s-%d", n, i))
					}
				}
				return map[string]any{"c": custGID(c)}, err
			}},
	}
}

// measureLifecycle measures every correction and removal, one at a time, and the sweep.
func (b *bench) measureLifecycle(ctx context.Context, rep *report) error {
	var err error
	if rep.lifecycle, err = b.measureWriteOps(ctx, b.lifecycleOps()); err != nil {
		return err
	}
	n := sweepTickets
	if b.cfg.quick {
		n /= 10
	}
	sw, err := b.measureSweep(ctx, n)
	rep.sweep = sw
	return err
}

// measureSweep seeds an organization of 10 users with n tickets in all (without the added
// latency), removes it, and times its sweep with the latency.
func (b *bench) measureSweep(ctx context.Context, n int) (*sweepResult, error) {
	log.Printf("seeding an organization of %d tickets to sweep …", n)
	org, err := b.seeder.CreateOrganization(ctx, "Swept")
	if err != nil {
		return nil, err
	}
	var users []*saas.User
	for i := range 10 {
		u, err := b.seeder.CreateUser(ctx, org.ID, "Swept", fmt.Sprintf("swept-%d@example.com", i))
		if err != nil {
			return nil, err
		}
		users = append(users, u)
	}
	var (
		wg    sync.WaitGroup
		next  atomic.Int64
		first atomic.Value
	)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				if _, err := b.seeder.CreateTicket(ctx, org.ID, users[i%int64(len(users))].ID, "Swept", "b"); err != nil {
					first.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := first.Load().(error); err != nil {
		return nil, err
	}
	if err := b.repo.DeleteOrganization(ctx, org.ID); err != nil {
		return nil, err
	}
	mctx, meter := repository.WithMeter(ctx)
	start := time.Now()
	if _, err := b.repo.Sweep(mctx); err != nil {
		return nil, err
	}
	return &sweepResult{tickets: n, took: time.Since(start), usage: meter.Usage()}, nil
}

// writeLifecycle writes the section on the corrections, removals and the sweep.
func (rep *report) writeLifecycle(w func(string, ...any)) {
	if len(rep.lifecycle) == 0 {
		return
	}
	w("## Corrections, removals and the sweep\n\n")
	w("Sequential, through the API, with the added latency; each run corrects or removes an object of its own (docs/api.md, \"Corrections and removals\").\n\n")
	writeTable(w, "what it removes or moves", rep.lifecycle)
	if s := rep.sweep; s != nil {
		w("\nThe sweep of an organization of 10 users and %d tickets (docs/data-model.md, \"Removals and the sweep\"): %s s, %s.\n",
			s.tickets, fmt.Sprintf("%.1f", s.took.Seconds()), formatCalls(s.usage.Calls))
	}
	w("\n")
}

// printLifecycle measures the corrections, removals and the sweep alone and prints their section.
func printLifecycle(ctx context.Context, b *bench, rep *report) error {
	if err := b.measureLifecycle(ctx, rep); err != nil {
		return err
	}
	var out strings.Builder
	rep.writeLifecycle(func(format string, a ...any) { fmt.Fprintf(&out, format, a...) })
	fmt.Print(out.String())
	return nil
}
