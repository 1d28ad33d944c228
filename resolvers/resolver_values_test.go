package resolvers

import "testing"

// gqlgen asks the root resolver for an object's resolver at every field it resolves: each is a
// value that fits an interface as is (graph/resolver.gotpl), never a fresh allocation.
func TestObjectResolversAllocateNothing(t *testing.T) {
	r := &Resolver{}
	for name, get := range map[string]func() any{
		"Query": func() any { return r.Query() }, "Organization": func() any { return r.Organization() },
		"User": func() any { return r.User() }, "Ticket": func() any { return r.Ticket() },
		"Department": func() any { return r.Department() }, "Employee": func() any { return r.Employee() },
		"Customer": func() any { return r.Customer() }, "Order": func() any { return r.Order() },
		"OrderItem": func() any { return r.OrderItem() }, "Product": func() any { return r.Product() },
	} {
		if n := testing.AllocsPerRun(100, func() { _ = get() }); n != 0 {
			t.Errorf("Resolver.%s allocates %v times a call", name, n)
		}
	}
}
