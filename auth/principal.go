// Package auth is the API's identity and authorization: it verifies bearer tokens (JWTs signed
// with a shared HS256 secret or by an identity provider's JWKS keys), turns their claims into a
// Principal, and holds the policy that says which roles may use which root field and mutation and
// which objects each principal may see. The server and the resolvers enforce it; the rules live
// here, in one place, so that a test can hold every root field of the schema against them.
package auth

import (
	"context"
	"slices"
	"time"

	"singletable/globalid"
)

// Role is a role a token grants in its `roles` claim.
type Role string

// The roles of the API. Roles a token carries that are not listed here grant nothing (identity
// providers often add their own).
const (
	RoleAdmin     Role = "admin"
	RoleOrgAdmin  Role = "org-admin"
	RoleOrgMember Role = "org-member"
	RoleHR        Role = "hr"
	RoleSales     Role = "sales"
	RoleCustomer  Role = "customer"
)

// Roles lists every role, in the order the documentation shows them.
var Roles = []Role{RoleAdmin, RoleOrgAdmin, RoleOrgMember, RoleHR, RoleSales, RoleCustomer}

// Principal is the caller of a request, as its token describes it.
type Principal struct {
	// Subject is the token's `sub`: who the caller is (rate limiting keys on it). It is empty
	// only when authentication is disabled (AdminPrincipal): key on the client's address then.
	Subject string
	Roles   []Role
	// Org is the organization the org roles apply to: the key id decoded from the `org` claim (a
	// global Organization ID); empty without one.
	Org string
	// Customer is the customer the customer role applies to, decoded from the `customer` claim.
	Customer string
	// ValidUntil is when the token stops being accepted: its `exp` plus the verifier's leeway for
	// clock skew. A request is verified once, when it starts; a subscription outlives that check,
	// so it ends here (zero: never, as when authentication is disabled).
	ValidUntil time.Time
}

// Expired reports whether the token that identified p is no longer accepted at now.
func (p Principal) Expired(now time.Time) bool {
	return !p.ValidUntil.IsZero() && !now.Before(p.ValidUntil)
}

// Has reports whether the principal holds role r. The org roles count only with an organization,
// the customer role only with a customer: without one they could not be narrowed to a scope.
func (p Principal) Has(r Role) bool {
	switch r {
	case RoleOrgAdmin, RoleOrgMember:
		if p.Org == "" {
			return false
		}
	case RoleCustomer:
		if p.Customer == "" {
			return false
		}
	}
	return slices.Contains(p.Roles, r)
}

// Admin reports whether the principal may do everything.
func (p Principal) Admin() bool { return p.Has(RoleAdmin) }

// orgRole reports whether the principal holds an org role (for its organization p.Org).
func (p Principal) orgRole() bool { return p.Has(RoleOrgAdmin) || p.Has(RoleOrgMember) }

// AdminPrincipal is the principal of every request when authentication is switched off. It has
// no subject: nobody identified the caller, and requests of different callers must not share one
// rate-limit bucket.
func AdminPrincipal() Principal {
	return Principal{Roles: []Role{RoleAdmin}}
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p; the server's authentication calls it for each request.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the authenticated caller of the request ctx belongs to. ok is false when the
// request was not authenticated; every check in this package then denies.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// Claims are the claims of a token that this API reads (besides the registered ones the verifier
// checks: exp, nbf, iat, iss, aud).
type Claims struct {
	Subject string
	Roles   []string
	// Org and Customer are global IDs, as a client sees them.
	Org      string
	Customer string
}

// The types of the global IDs the tenant claims carry: part of the token's contract (an org role's
// `org` is an Organization's ID, a customer's `customer` a Customer's), so they are spelled here
// rather than taken from the GraphQL model, which this package does not import.
const (
	claimOrgType      = "Organization"
	claimCustomerType = "Customer"
)

// principalOf checks the API's own claims and turns them into a Principal: `sub` is required,
// `org` must be an Organization ID and `customer` a Customer ID when present.
func principalOf(c Claims) (Principal, error) {
	if c.Subject == "" {
		return Principal{}, unauthenticated("the token has no sub claim")
	}
	p := Principal{Subject: c.Subject}
	for _, r := range c.Roles {
		p.Roles = append(p.Roles, Role(r))
	}
	if c.Org != "" {
		parts, err := globalid.DecodeOf("org", c.Org, claimOrgType, 1)
		if err != nil {
			return Principal{}, unauthenticated("the token's org claim is not an Organization ID")
		}
		p.Org = parts[0]
	}
	if c.Customer != "" {
		parts, err := globalid.DecodeOf("customer", c.Customer, claimCustomerType, 1)
		if err != nil {
			return Principal{}, unauthenticated("the token's customer claim is not a Customer ID")
		}
		p.Customer = parts[0]
	}
	return p, nil
}
