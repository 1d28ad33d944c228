package auth

import (
	"context"
	"strings"

	"singletable/apperr"
)

// Decision is the outcome of a scope check on a global ID.
type Decision int

const (
	// Deny: the object is outside the caller's scope; answer NOT_FOUND without reading it.
	Deny Decision = iota
	// Allow: the object is inside the caller's scope whatever it holds.
	Allow
)

func decide(ok bool) Decision {
	if ok {
		return Allow
	}
	return Deny
}

// A Scope is the tenant an object belongs to, as its ID tells it: an organization, a customer,
// or HR as a whole. Every ID carries its object's tenant, so the check never needs a read (and a
// foreign object costs exactly what a missing one does). The node descriptors (graph/model) build
// one per object from its ID's parts; this package decides what a principal may see of it and
// needs no node type names for that.
type Scope struct {
	kind   scopeKind
	tenant string
}

type scopeKind int

const (
	// noScope is the zero Scope: nobody sees it (deny by default).
	noScope scopeKind = iota
	orgScope
	customerScope
	hrScope
	catalogScope
	warehouseScope
)

// OrgScope is the scope of an object that belongs to organization org (the organization itself,
// its users, their tickets).
func OrgScope(org string) Scope { return Scope{kind: orgScope, tenant: org} }

// CustomerScope is the scope of an object that belongs to customer c (the customer, its orders).
func CustomerScope(c string) Scope { return Scope{kind: customerScope, tenant: c} }

// HRScope is the scope of HR's objects: locations, departments, employees. HR is one tenant.
func HRScope() Scope { return Scope{kind: hrScope} }

// CatalogScope is the scope of the products: every commerce role sees them (a customer orders
// them), their stock and order lines narrowed further per field (fieldPolicy).
func CatalogScope() Scope { return Scope{kind: catalogScope} }

// WarehouseScope is the scope of the warehouses: sales (their stock) and HR (their staff).
func WarehouseScope() Scope { return Scope{kind: warehouseScope} }

// Sees decides whether p may see an object of scope s.
func (p Principal) Sees(s Scope) Decision {
	switch s.kind {
	case orgScope:
		return decide(p.SeesOrg(s.tenant))
	case customerScope:
		return decide(p.SeesCustomer(s.tenant))
	case hrScope:
		return decide(p.SeesHR())
	case catalogScope:
		return decide(p.Admin() || p.Has(RoleSales) || p.Has(RoleCustomer))
	case warehouseScope:
		return decide(p.Admin() || p.Has(RoleSales) || p.Has(RoleHR))
	}
	return Deny
}

// SeesOrg reports whether p may see organization org and what hangs from it (users, tickets).
func (p Principal) SeesOrg(org string) bool {
	return p.Admin() || (p.orgRole() && org != "" && org == p.Org)
}

// SeesCustomer reports whether p may see customer c and what hangs from it (addresses, orders).
func (p Principal) SeesCustomer(c string) bool {
	return p.Admin() || p.Has(RoleSales) || (p.Has(RoleCustomer) && c != "" && c == p.Customer)
}

// SeesHR reports whether p may see HR's locations, departments and employees.
func (p Principal) SeesHR() bool { return p.Admin() || p.Has(RoleHR) }

// OwnOrganization is the organization the `organizations` list is narrowed to: ok is false for a
// caller who sees them all.
func (p Principal) OwnOrganization() (org string, narrowed bool) {
	if p.Admin() {
		return "", false
	}
	return p.Org, true
}

// OwnCustomer is the customer the `customers` list is narrowed to: ok is false for a caller who
// sees them all (admin, sales).
func (p Principal) OwnCustomer() (customer string, narrowed bool) {
	if p.Admin() || p.Has(RoleSales) {
		return "", false
	}
	return p.Customer, true
}

// Caller is the principal of ctx's request; without one it is the zero Principal, which holds no
// role and so may do and see nothing.
func Caller(ctx context.Context) Principal {
	p, _ := FromContext(ctx)
	return p
}

// Hidden is the error for an object outside the caller's scope: the very NOT_FOUND the loaders
// give for a missing object of that kind (typ is a node type, or a kind such as "reporter"), so
// that the answer says nothing about whether it exists.
func Hidden(typ string) *apperr.Error {
	return apperr.NotFound(strings.ToLower(typ))
}
