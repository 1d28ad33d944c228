package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"singletable/auth"
	"singletable/graph/model"
	"singletable/repository"
	"singletable/repository/store"
)

// devTokenTTL is how long the printed development tokens stay valid: a working day and then some.
const devTokenTTL = 24 * time.Hour

// devToken is a ready-to-paste token for one sample principal.
type devToken struct {
	label string
	token string
}

// mintDevTokens signs tokens for the sample principals (an admin, an org-member of the first
// organization, hr, sales, the first customer) with the HS256 secret, using real ids read from
// the table; a principal whose sample object is missing (an unseeded table) is left out.
func mintDevTokens(ctx context.Context, repo *store.Store, c auth.Settings) ([]devToken, error) {
	type sample struct {
		label  string
		claims auth.Claims
	}
	principals := []sample{
		{"admin", auth.Claims{Subject: "dev-admin", Roles: []string{string(auth.RoleAdmin)}}},
	}
	if orgs, err := repo.ListOrganizations(ctx, repository.PageArgs{First: 1}); err != nil {
		return nil, err
	} else if len(orgs.Items) > 0 {
		o := orgs.Items[0]
		principals = append(principals, sample{"org-member of " + o.Name, auth.Claims{Subject: "dev-org-member", Roles: []string{string(auth.RoleOrgMember)}, Org: model.Organizations.IDOf(o.ID)}})
	}
	principals = append(principals, []sample{
		{"hr", auth.Claims{Subject: "dev-hr", Roles: []string{string(auth.RoleHR)}}},
		{"sales", auth.Claims{Subject: "dev-sales", Roles: []string{string(auth.RoleSales)}}},
	}...)
	if cs, err := repo.ListCustomers(ctx, repository.PageArgs{First: 1}); err != nil {
		return nil, err
	} else if len(cs.Items) > 0 {
		cu := cs.Items[0]
		principals = append(principals, sample{"customer " + cu.Name, auth.Claims{Subject: "dev-customer", Roles: []string{string(auth.RoleCustomer)}, Customer: model.Customers.IDOf(cu.ID)}})
	}
	out := make([]devToken, 0, len(principals))
	for _, p := range principals {
		tok, err := auth.MintHS256([]byte(c.HS256Secret), p.claims, auth.MintOptions{TTL: devTokenTTL, Issuer: c.Issuer, Audience: c.Audience})
		if err != nil {
			return nil, err
		}
		out = append(out, devToken{label: p.label, token: tok})
	}
	return out, nil
}

// printDevTokens writes the tokens and a curl example that uses the first (the admin's).
func printDevTokens(w io.Writer, tokens []devToken, addr string) {
	var b strings.Builder
	fmt.Fprintf(&b, "\nDevelopment tokens (valid %s; send as Authorization: Bearer <token>):\n", devTokenTTL)
	for _, t := range tokens {
		fmt.Fprintf(&b, "\n  %s:\n    %s\n", t.label, t.token)
	}
	if len(tokens) > 0 {
		fmt.Fprintf(&b, "\nTry:\n  curl -s http://%s/query -H 'Content-Type: application/json' \\\n    -H 'Authorization: Bearer %s' \\\n    -d '{\"query\":\"{ organizations { edges { node { name } } } }\"}'\n\n", addr, tokens[0].token)
	}
	_, _ = io.WriteString(w, b.String())
}

// checkDevTokenListener refuses development tokens on a listen address other machines can reach:
// the playground page needs no token and carries the admin's. AUTH_DEV_TOKENS_BEHIND_LOOPBACK
// lifts the rule for a server whose own address is open but whose network is not, as in a
// container whose port is published on the host's 127.0.0.1 only; the Host header check
// (server.Config.LoopbackHostOnly) stays on either way.
func checkDevTokenListener(c config, bad func(string, ...any)) {
	if c.Auth.DevTokens && !c.devTokensBehindLoopback && !auth.Loopback(c.guard.host) {
		bad("AUTH_DEV_TOKENS / -dev-tokens: listen on loopback only (HOST=127.0.0.1), since the playground page then carries an admin token; " +
			"behind a port published on 127.0.0.1 only, set AUTH_DEV_TOKENS_BEHIND_LOOPBACK=true")
	}
}
