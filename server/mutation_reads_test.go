package server_test

import (
	"testing"

	"singletable/server"
)

// A mutation's result reads what the mutation wrote, also when an earlier field of the same
// operation had read (and cached) the old version: top-level mutation fields run one after
// another, and each write replaces what the request's loaders and list memo hold.
func TestLaterMutationFieldsReadEarlierWrites(t *testing.T) {
	a := newAPI(t, server.Config{})
	d := a.seedCommerce(1, 1, 1)
	o := d.orders[d.customers[0].ID][0]
	var out struct {
		A, B struct {
			Status   string
			Customer struct {
				Orders struct {
					Edges []struct{ Node struct{ ID, Status string } }
				}
			}
		}
	}
	a.ok(`mutation($id: ID!) {
	  a: updateOrderStatus(input: {id: $id, status: SHIPPED}) { status customer { orders { edges { node { id status } } } } }
	  b: updateOrderStatus(input: {id: $id, status: DELIVERED}) { status customer { orders { edges { node { id status } } } } }
	}`, map[string]any{"id": orderID(o)}, &out)
	for name, r := range map[string]struct {
		got, want string
		orders    []struct{ Node struct{ ID, Status string } }
	}{"a": {out.A.Status, "SHIPPED", out.A.Customer.Orders.Edges}, "b": {out.B.Status, "DELIVERED", out.B.Customer.Orders.Edges}} {
		if r.got != r.want || len(r.orders) != 1 || r.orders[0].Node.Status != r.want {
			t.Errorf("%s: status %s, customer's orders %+v; want %s everywhere", name, r.got, r.orders, r.want)
		}
	}

	// The same for a customer: the address just added shows on the customer read back.
	var c struct {
		A struct{ MailingAddresses []struct{ Label string } }
		B struct{ MailingAddresses []struct{ Label string } }
	}
	a.ok(`mutation($c: ID!) {
	  a: addMailingAddress(input: {customerId: $c, address: {label: "One", line1: "1 St", city: "X", country: "US"}}) { mailingAddresses { label } }
	  b: addMailingAddress(input: {customerId: $c, address: {label: "Two", line1: "2 St", city: "X", country: "US"}}) { mailingAddresses { label } }
	}`, map[string]any{"c": customerID(d.customers[0])}, &c)
	if len(c.A.MailingAddresses) != 1 || len(c.B.MailingAddresses) != 2 {
		t.Fatalf("addresses after each addition: %+v, %+v", c.A, c.B)
	}
}
