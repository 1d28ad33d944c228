package server_test

import (
	"testing"
	"time"

	"singletable/repository"
	"singletable/server"
)

// createdAt and updatedAt of one object have the same precision (whole milliseconds), even when
// the server's clock has nanoseconds: an object's two timestamps compare and print alike.
func TestCreatedAtAndUpdatedAtHaveOnePrecision(t *testing.T) {
	start := time.Date(2026, 3, 4, 5, 6, 7, 890123456, time.UTC)
	a := newAPI(t, server.Config{}, func(c *repository.Config) {
		c.Clock = steppingClock(start, 1500*time.Microsecond+7)
	})
	var org struct{ CreateOrganization struct{ ID string } }
	a.ok(`mutation { createOrganization(input: {name: "Clockwork"}) { id } }`, nil, &org)
	var user struct{ CreateUser struct{ ID string } }
	a.ok(`mutation($o: ID!) { createUser(input: {organizationId: $o, name: "Ada", email: "ada@clock.example"}) { id } }`,
		map[string]any{"o": org.CreateOrganization.ID}, &user)
	var created struct{ CreateTicket stamps }
	a.ok(`mutation($u: ID!) { createTicket(input: {reporterId: $u, title: "Tick", body: "Tock"}) { id createdAt updatedAt } }`,
		map[string]any{"u": user.CreateUser.ID}, &created)
	var updated struct{ UpdateTicket stamps }
	a.ok(`mutation($t: ID!) { updateTicket(input: {id: $t, status: CLOSED}) { createdAt updatedAt } }`,
		map[string]any{"t": created.CreateTicket.ID}, &updated)
	created.CreateTicket.check(t, "created ticket")
	updated.UpdateTicket.check(t, "updated ticket")
	if !updated.UpdateTicket.updatedAt(t).After(updated.UpdateTicket.createdAt(t)) {
		t.Errorf("updated ticket: updatedAt %s is not after createdAt %s", updated.UpdateTicket.UpdatedAt, updated.UpdateTicket.CreatedAt)
	}

	var loc struct{ CreateLocation struct{ ID string } }
	a.ok(`mutation { createLocation(input: {country: "Italy", state: "Lazio", city: "Rome", postalCode: "00184", address: "Via Nazionale 1"}) { id } }`, nil, &loc)
	var dept struct{ CreateDepartment stamps }
	a.ok(`mutation($l: ID!) { createDepartment(input: {name: "Clocks", locationId: $l}) { id createdAt updatedAt } }`,
		map[string]any{"l": loc.CreateLocation.ID}, &dept)
	var renamed struct{ RenameDepartment stamps }
	a.ok(`mutation($d: ID!) { renameDepartment(input: {id: $d, name: "Watches"}) { createdAt updatedAt } }`,
		map[string]any{"d": dept.CreateDepartment.ID}, &renamed)
	dept.CreateDepartment.check(t, "created department")
	renamed.RenameDepartment.check(t, "renamed department")

	var cust struct{ CreateCustomer struct{ ID string } }
	a.ok(`mutation { createCustomer(input: {name: "Tim", email: "tim@clock.example"}) { id } }`, nil, &cust)
	var placed struct{ PlaceOrder orderStamps }
	a.ok(`mutation($c: ID!) { placeOrder(input: {customerId: $c, idempotencyKey: "k1", items: [{sku: "W-1", productName: "Watch", quantity: 1, unitPriceCents: 100}]}) { id placedAt updatedAt } }`,
		map[string]any{"c": cust.CreateCustomer.ID}, &placed)
	var shipped struct{ UpdateOrderStatus orderStamps }
	a.ok(`mutation($o: ID!) { updateOrderStatus(input: {id: $o, status: SHIPPED}) { placedAt updatedAt } }`,
		map[string]any{"o": placed.PlaceOrder.ID}, &shipped)
	for name, o := range map[string]orderStamps{"placed order": placed.PlaceOrder, "shipped order": shipped.UpdateOrderStatus} {
		stamps{CreatedAt: o.PlacedAt, UpdatedAt: o.UpdatedAt}.check(t, name)
	}
}

type stamps struct {
	ID        string
	CreatedAt string
	UpdatedAt string
}

type orderStamps struct {
	ID        string
	PlacedAt  string
	UpdatedAt string
}

func (s stamps) createdAt(t *testing.T) time.Time { return parseStamp(t, s.CreatedAt) }
func (s stamps) updatedAt(t *testing.T) time.Time { return parseStamp(t, s.UpdatedAt) }

// check fails unless both timestamps are whole milliseconds and updatedAt is not before createdAt.
func (s stamps) check(t *testing.T, what string) {
	t.Helper()
	c, u := s.createdAt(t), s.updatedAt(t)
	for name, v := range map[string]time.Time{"createdAt": c, "updatedAt": u} {
		if v.Nanosecond()%int(time.Millisecond) != 0 {
			t.Errorf("%s: %s %s has a precision finer than a millisecond", what, name, v.Format(time.RFC3339Nano))
		}
	}
	if u.Before(c) {
		t.Errorf("%s: updatedAt %s is before createdAt %s", what, s.UpdatedAt, s.CreatedAt)
	}
}

func parseStamp(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("timestamp %q: %v", s, err)
	}
	return v
}
