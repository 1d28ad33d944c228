package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"singletable/auth"
	"singletable/graph/model"
)

const secret = "cmd-token-tests-hs256-secret-0123456789"

func TestMintedTokenVerifies(t *testing.T) {
	org := model.Organizations.IDOf("01JAAAAAAAAAAAAAAAAAAAAAAA")
	var out bytes.Buffer
	env := map[string]string{"AUTH_HS256_SECRET": secret}
	if err := run([]string{"-role", "org-member", "-org", org}, func(k string) string { return env[k] }, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	v, err := auth.New(auth.Config{HS256Secret: []byte(secret)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := v.Verify(context.Background(), strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != "dev-org-member" || !p.Has(auth.RoleOrgMember) || p.Org != "01JAAAAAAAAAAAAAAAAAAAAAAA" {
		t.Fatalf("principal %+v", p)
	}
}

func TestBadArgumentsAreRefused(t *testing.T) {
	env := map[string]string{"AUTH_HS256_SECRET": secret}
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"-role", "admin"}, map[string]string{}, "set AUTH_HS256_SECRET"},
		{nil, env, "at least one -role"},
		{[]string{"-role", "root"}, env, `unknown role "root"`},
		{[]string{"-role", "org-member"}, env, "need -org"},
		{[]string{"-role", "customer"}, env, "needs -customer"},
		{[]string{"-role", "org-admin", "-org", "nope"}, env, "-org must be an Organization ID"},
		{[]string{"-role", "customer", "-customer", model.Organizations.IDOf("x")}, env, "-customer must be a Customer ID"},
	} {
		err := run(c.args, func(k string) string { return c.env[k] }, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %q", c.args, err, c.want)
		}
	}
}
