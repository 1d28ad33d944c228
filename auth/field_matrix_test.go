package auth_test

import (
	"os"
	"strings"
	"testing"

	"singletable/auth"
)

// The role × field matrix of docs/auth.md is the field policy's: generated here from the schema's
// fields and auth's policy, it must be the document's table word for word (UPDATE_DOCS=1 writes
// it). A field the policy narrows, or a field added to a narrowed type, changes the table.
func TestFieldPolicyMatrixIsTheDocumentedOne(t *testing.T) {
	schema := servedSchema(t)
	fields := map[string][]string{}
	for name, def := range schema.Types {
		if !auth.Narrows(name) {
			continue
		}
		for _, f := range def.Fields {
			if !strings.HasPrefix(f.Name, "__") {
				fields[name] = append(fields[name], f.Name)
			}
		}
	}
	want := auth.FieldMatrix(fields)
	const doc, begin, end = "../docs/auth.md", "<!-- field-policy:begin -->\n", "<!-- field-policy:end -->"
	raw, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no field policy table between %q and %q", doc, begin, end)
	}
	if got := text[i+len(begin) : j]; got != want {
		if os.Getenv("UPDATE_DOCS") == "1" {
			if err := os.WriteFile(doc, []byte(text[:i+len(begin)]+want+text[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("docs/auth.md's field policy table is not the policy's (UPDATE_DOCS=1 rewrites it); want:\n%s", want)
	}
	for _, f := range []struct {
		object, field string
		role          auth.Role
		reads         bool
	}{
		{"Product", "totalInventory", auth.RoleCustomer, false},
		{"Product", "totalInventory", auth.RoleSales, true},
		{"Employee", "id", auth.RoleCustomer, true},
		{"Employee", "name", auth.RoleCustomer, true},
		{"Employee", "createdAt", auth.RoleCustomer, false},
		{"OrderItem", "warehouse", auth.RoleCustomer, false},
	} {
		if got := (auth.Principal{Roles: []auth.Role{f.role}, Customer: "c"}).MayRead(f.object, f.field); got != f.reads {
			t.Errorf("%s reads %s.%s: %v, want %v", f.role, f.object, f.field, got, f.reads)
		}
	}
}
