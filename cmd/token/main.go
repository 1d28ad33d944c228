// Command token mints a development token, signed with the HS256 secret the server verifies
// (AUTH_HS256_SECRET), for a principal of your choosing:
//
//	AUTH_HS256_SECRET=... go run ./cmd/token -role org-member -org <Organization ID>
//	AUTH_HS256_SECRET=... go run ./cmd/token -role customer -customer <Customer ID> -ttl 8h
//	AUTH_HS256_SECRET=... go run ./cmd/token -role hr -role sales -sub alice
//
// It prints the token alone on stdout, ready for Authorization: Bearer <token>. Production
// tokens come from an identity provider (AUTH_JWKS_URL), never from here.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"singletable/auth"
	"singletable/graph/model"
)

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "token:", err)
		}
		os.Exit(2)
	}
}

// roleList is a repeatable -role flag (also comma-separated).
type roleList []string

func (r *roleList) String() string { return strings.Join(*r, ",") }

func (r *roleList) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*r = append(*r, s)
		}
	}
	return nil
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var roles roleList
	fs.Var(&roles, "role", "a role: admin, org-admin, org-member, hr, sales, customer (repeat or comma-separate for several)")
	sub := fs.String("sub", "", "the subject, sub (default dev-<first role>)")
	org := fs.String("org", "", "the Organization ID (global ID) an org-admin or org-member belongs to")
	customer := fs.String("customer", "", "the Customer ID (global ID) of a customer")
	ttl := fs.Duration("ttl", time.Hour, "how long the token is valid")
	issuer := fs.String("iss", getenv("AUTH_ISSUER"), "issuer, iss (env AUTH_ISSUER)")
	audience := fs.String("aud", getenv("AUTH_AUDIENCE"), "audience, aud (env AUTH_AUDIENCE)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	secret := getenv("AUTH_HS256_SECRET")
	if len(secret) < auth.MinHS256SecretLen {
		return fmt.Errorf("set AUTH_HS256_SECRET (at least %d bytes) to the secret the server verifies", auth.MinHS256SecretLen)
	}
	if len(roles) == 0 {
		return errors.New("give at least one -role")
	}
	for _, r := range roles {
		if !slices.Contains(auth.Roles, auth.Role(r)) {
			return fmt.Errorf("unknown role %q", r)
		}
	}
	needs := func(role auth.Role) bool { return slices.Contains(roles, string(role)) }
	if (needs(auth.RoleOrgAdmin) || needs(auth.RoleOrgMember)) && *org == "" {
		return errors.New("org-admin and org-member need -org <Organization ID>")
	}
	if needs(auth.RoleCustomer) && *customer == "" {
		return errors.New("customer needs -customer <Customer ID>")
	}
	if *org != "" {
		if _, err := model.Organizations.Decode("org", *org); err != nil {
			return errors.New("-org must be an Organization ID (the id field of an Organization)")
		}
	}
	if *customer != "" {
		if _, err := model.Customers.Decode("customer", *customer); err != nil {
			return errors.New("-customer must be a Customer ID (the id field of a Customer)")
		}
	}
	if *ttl <= 0 {
		return errors.New("-ttl must be positive")
	}
	if *sub == "" {
		*sub = "dev-" + roles[0]
	}
	tok, err := auth.MintHS256([]byte(secret), auth.Claims{Subject: *sub, Roles: roles, Org: *org, Customer: *customer},
		auth.MintOptions{TTL: *ttl, Issuer: *issuer, Audience: *audience})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, tok)
	return err
}
