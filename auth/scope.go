package auth

import (
	"context"
	"strings"

	"singletable/apperr"
	"singletable/graph/model"
)

// Decision is the outcome of a scope check on a global ID.
type Decision int

const (
	// Deny: the object is outside the caller's scope; answer NOT_FOUND without reading it.
	Deny Decision = iota
	// Allow: the object is inside the caller's scope whatever it holds.
	Allow
	// AfterRead: the ID does not say; read the object and check the tenant it names (SeesOrg).
	AfterRead
)

func decide(ok bool) Decision {
	if ok {
		return Allow
	}
	return Deny
}

// nodeScopes decides, per node type, from the key parts of a global ID (model.DecodeID), whether
// the caller may see the object. Organization and User IDs carry the organization, Customer and
// Order IDs the customer; a Ticket's ID carries only the ticket, so an org role's check waits for
// the ticket's organization. HR is one scope.
var nodeScopes = map[string]func(p Principal, parts []string) Decision{
	model.TypeOrganization: func(p Principal, parts []string) Decision { return decide(p.SeesOrg(parts[0])) },
	model.TypeUser:         func(p Principal, parts []string) Decision { return decide(p.SeesOrg(parts[0])) },
	model.TypeTicket: func(p Principal, _ []string) Decision {
		switch {
		case p.Admin():
			return Allow
		case p.orgRole():
			return AfterRead
		}
		return Deny
	},
	model.TypeCustomer:   func(p Principal, parts []string) Decision { return decide(p.SeesCustomer(parts[0])) },
	model.TypeOrder:      func(p Principal, parts []string) Decision { return decide(p.SeesCustomer(parts[0])) },
	model.TypeDepartment: func(p Principal, _ []string) Decision { return decide(p.SeesHR()) },
	model.TypeEmployee:   func(p Principal, _ []string) Decision { return decide(p.SeesHR()) },
	model.TypeLocation:   func(p Principal, _ []string) Decision { return decide(p.SeesHR()) },
}

// HasNodeScope reports whether node type typ has a scope check (a test holds the schema's Node
// types against it).
func HasNodeScope(typ string) bool {
	_, ok := nodeScopes[typ]
	return ok
}

// SeesID decides whether p may see the object of type typ whose global ID has the key parts
// parts. Types without a scope check are denied.
func (p Principal) SeesID(typ string, parts []string) Decision {
	check, ok := nodeScopes[typ]
	if !ok || len(parts) == 0 {
		return Deny
	}
	return check(p, parts)
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
