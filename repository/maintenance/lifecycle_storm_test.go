package maintenance_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/maintenance"
	"singletable/repository/repotest"
	"singletable/repository/saas"
)

// A storm of creates, corrections and removals of every kind, 16 at a time, with and without every
// third DynamoDB call throttled, on few objects so that they collide: removals race the writes
// under the objects they remove. Each write succeeds or is refused with CONFLICT, NOT_FOUND (its
// object was removed first) or BAD_USER_INPUT (a management cycle); afterwards, once the sweep has
// run (throttled too), a full scan of the table finds no item that outlived its object, and -recount finds every
// counter exact.
func TestLifecycleStorm(t *testing.T) {
	for _, every := range []int{0, 3} {
		t.Run(fmt.Sprintf("throttle every %d", every), func(t *testing.T) {
			th := &repotest.Throttler{}
			r := maintenance.New(repotest.NewRepo(t, func(c *repository.Config) { c.WrapTransport = th.Wrap }))
			w := newStormWorld(t, r)
			ops := w.ops(160)
			th.Throttle(every)
			var mu sync.Mutex
			codes := map[apperr.Code]int{}
			var next atomic.Int64
			var wg sync.WaitGroup
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := next.Add(1) - 1; i < int64(len(ops)); i = next.Add(1) - 1 {
						var code apperr.Code
						if err := ops[i](); err != nil {
							code = apperr.CodeOf(err)
							if code == apperr.CodeInternal || code == apperr.CodeUnavailable {
								t.Logf("write %d: %v", i, err)
							}
						}
						mu.Lock()
						codes[code]++
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			t.Logf("outcomes %v; %d of %d calls throttled", codes, th.Throttled(), th.Calls())
			for code := range codes {
				switch code {
				case "", apperr.CodeConflict, apperr.CodeNotFound, apperr.CodeBadUserInput:
				default:
					t.Errorf("%d writes ended with %s", codes[code], code)
				}
			}
			if codes[""] < len(ops)/3 {
				t.Fatalf("outcomes %v: most writes succeed", codes)
			}
			if _, err := r.Sweep(context.Background()); err != nil { // throttled as the storm was
				t.Fatal(err)
			}
			th.Throttle(0)
			if p := maintenance.IntegrityProblems(t, r); len(p) != 0 {
				t.Fatalf("%d items outlived their objects: %v", len(p), p)
			}
			rep, err := r.Recount(context.Background(), maintenance.RecountOptions{Settle: 1})
			if err != nil || len(rep.Repairs) != 0 {
				t.Fatalf("recount: %v, repairs %+v", err, rep.Repairs)
			}
		})
	}
}

// stormWorld is the storm's objects: two organizations of three users with two tickets each, two
// departments of four employees (two of them the only managers), three customers with two orders.
type stormWorld struct {
	t       *testing.T
	r       *maintenance.Maintenance
	ctx     context.Context
	orgs    []*saas.Organization
	users   []*saas.User
	tickets []*saas.Ticket
	depts   []*hr.Department
	staff   []*hr.Employee
	custs   []*commerce.Customer
	orders  []*commerce.Order
}

func newStormWorld(t *testing.T, r *maintenance.Maintenance) *stormWorld {
	w := &stormWorld{t: t, r: r, ctx: context.Background()}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	loc, err := r.CreateLocation(w.ctx, hr.LocationInput{Country: "Norway", State: "Oslo", City: "Oslo", PostalCode: "0150", Address: "1"})
	must(err)
	for o := range 2 {
		org, err := r.CreateOrganization(w.ctx, fmt.Sprintf("Org %d", o))
		must(err)
		w.orgs = append(w.orgs, org)
		for u := range 3 {
			user, err := r.CreateUser(w.ctx, org.ID, "U", fmt.Sprintf("u%d@o%d.example", u, o))
			must(err)
			w.users = append(w.users, user)
			for range 2 {
				tk, err := r.CreateTicket(w.ctx, org.ID, user.ID, "t", "b")
				must(err)
				w.tickets = append(w.tickets, tk)
			}
		}
	}
	for d := range 2 {
		dept, err := r.CreateDepartment(w.ctx, fmt.Sprintf("Dept %d", d), loc.Ref())
		must(err)
		w.depts = append(w.depts, dept)
		for e := range 4 {
			w.staff = append(w.staff, w.hire(dept, fmt.Sprintf("e%d-%d", d, e)))
		}
	}
	for c := range 3 {
		cu, err := r.CreateCustomer(w.ctx, "C", fmt.Sprintf("c%d@shop.example", c), []commerce.MailingAddress{{Label: "Home", Line1: "1", City: "Oslo", Country: "NO"}})
		must(err)
		w.custs = append(w.custs, cu)
		for o := range 2 {
			ord, _, err := r.PlaceOrder(w.ctx, cu.ID, []commerce.OrderLine{{SKU: "S", ProductName: "P", Quantity: 1, UnitPriceCents: 5}}, fmt.Sprintf("seed-%d-%d", c, o))
			must(err)
			w.orders = append(w.orders, ord)
		}
	}
	return w
}

func (w *stormWorld) hire(d *hr.Department, name string) *hr.Employee {
	e, _, err := w.r.HireEmployee(w.ctx, hr.HireInput{DepartmentID: d.ID, Name: name, Email: name + "@corp.example", JobTitle: "Engineer"})
	if err != nil {
		w.t.Fatal(err)
	}
	return e
}

// ops is n writes picked at random (seeded) from every kind.
func (w *stormWorld) ops(n int) []func() error {
	rnd := rand.New(rand.NewPCG(25, 25))
	pick := func(l int) int { return rnd.IntN(l) }
	var out []func() error
	for i := range n {
		u, tk := w.users[pick(len(w.users))], w.tickets[pick(len(w.tickets))]
		e, m, d := w.staff[2+pick(len(w.staff)-2)], w.staff[pick(2)], w.depts[pick(len(w.depts))]
		c, o := w.custs[pick(len(w.custs))], w.orders[pick(len(w.orders))]
		email := fmt.Sprintf("s%d@x.example", i%5)
		kinds := []func() error{
			func() error { _, err := w.r.CreateTicket(w.ctx, u.OrgID, u.ID, "s", "b"); return err },
			func() error {
				st := saas.TicketClosed
				_, err := w.r.UpdateTicket(w.ctx, tk.OrgID, tk.ID, saas.TicketPatch{Status: &st})
				return err
			},
			func() error { return w.r.DeleteTicket(w.ctx, tk.OrgID, tk.ID, nil) },
			func() error { _, err := w.r.CreateUser(w.ctx, u.OrgID, "N", email); return err },
			func() error { _, err := w.r.UpdateUser(w.ctx, u.OrgID, u.ID, nil, &email); return err },
			func() error { return w.r.DeleteUser(w.ctx, u.OrgID, u.ID, true) },
			func() error { _, _, err := w.r.AssignManager(w.ctx, e.ID, m.ID); return err },
			func() error { _, err := w.r.UnassignManager(w.ctx, e.ID); return err },
			func() error { _, _, err := w.r.AssignMentor(w.ctx, e.ID, m.ID); return err },
			func() error { _, _, err := w.r.TransferEmployee(w.ctx, e.ID, d.ID); return err },
			func() error { return w.r.RemoveEmployee(w.ctx, e.ID) },
			func() error {
				_, _, err := w.r.HireEmployee(w.ctx, hr.HireInput{DepartmentID: d.ID, Name: "H", Email: "h@corp.example", JobTitle: "E", ManagerID: &e.ID})
				return err
			},
			func() error {
				_, _, err := w.r.PlaceOrder(w.ctx, c.ID, []commerce.OrderLine{{SKU: "S", ProductName: "P", Quantity: 1, UnitPriceCents: 5}}, fmt.Sprintf("k%d", i))
				return err
			},
			func() error {
				_, err := w.r.UpdateOrderStatus(w.ctx, o.CustomerID, o.ID, commerce.OrderShipped)
				return err
			},
			func() error { _, err := w.r.UpdateCustomer(w.ctx, c.ID, nil, &email); return err },
			func() error { _, err := w.r.RemoveMailingAddress(w.ctx, c.ID, "Home"); return err },
			func() error { return w.r.DeleteCustomer(w.ctx, c.ID) },
		}
		out = append(out, kinds[pick(len(kinds))])
		if i == n/2 { // one organization goes in the middle of the storm
			org := w.orgs[0]
			out = append(out, func() error { return w.r.DeleteOrganization(w.ctx, org.ID) })
		}
	}
	return out
}
