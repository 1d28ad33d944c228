package model_test

import (
	"slices"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"singletable/apperr"
	"singletable/auth"
	"singletable/globalid"
	"singletable/graph/model"
	"singletable/graph/schemafiles"
	"singletable/repository"
	"singletable/repository/catalog"
	"singletable/repository/commerce"
	"singletable/repository/hr"
	"singletable/repository/saas"
)

const (
	idA = "01J00000000000000000000001"
	idB = "01J00000000000000000000002"
)

// One sample entity per node type.
var samples = map[string]repository.Entity{
	"Organization": &saas.Organization{ID: idA},
	"User":         &saas.User{OrgID: idA, ID: idB},
	"Ticket":       &saas.Ticket{ID: idA, OrgID: idA, ReporterID: idB},
	"Customer":     &commerce.Customer{ID: idA},
	"Order":        &commerce.Order{CustomerID: idA, ID: idB},
	"Department":   &hr.Department{ID: idA},
	"Employee":     &hr.Employee{ID: idA},
	"Location":     &hr.Location{ID: idA, Country: "United States", State: "California", City: "San Francisco: SoMa", PostalCode: "94103"},
	"Product":      &catalog.Product{ID: idA},
	"Warehouse":    &catalog.Warehouse{ID: idB},
}

// Every Node type of the schema has a descriptor with every part set, and every descriptor names a
// Node type of the schema: adding a node type is adding its descriptor.
func TestEverySchemaNodeTypeHasACompleteDescriptor(t *testing.T) {
	schema := servedSchema(t)
	var names []string
	for _, d := range schema.GetPossibleTypes(schema.Types["Node"]) {
		names = append(names, d.Name)
		desc, ok := model.NodeNamed(d.Name)
		if !ok {
			t.Errorf("Node type %s has no descriptor in model.Nodes", d.Name)
			continue
		}
		if missing := model.MissingParts(desc); len(missing) > 0 {
			t.Errorf("the descriptor of %s has no %v", d.Name, missing)
		}
	}
	for _, d := range model.Nodes {
		if !slices.Contains(names, d.TypeName()) {
			t.Errorf("descriptor %s names no Node type of the schema", d.TypeName())
		}
	}
	if len(samples) != len(model.Nodes) {
		t.Errorf("%d samples for %d descriptors", len(samples), len(model.Nodes))
	}
}

// Every descriptor agrees with the entity definitions: the object it wraps carries a global ID
// that decodes to the descriptor's type, and the key built from that ID's parts is the entity's
// own. A descriptor wraps only its own type.
func TestDescriptorsRoundTripThroughGlobalIDs(t *testing.T) {
	for typ, e := range samples {
		d, ok := model.NodeNamed(typ)
		if !ok {
			t.Errorf("no descriptor for %s", typ)
			continue
		}
		n, ok := d.WrapAny(e)
		if !ok || n == nil {
			t.Errorf("%s: wrap failed", typ)
			continue
		}
		got, parts, err := model.DecodeNode("id", n.GetID())
		if err != nil || got.TypeName() != typ {
			t.Errorf("%s: the wrapped object's ID decodes to %v, %v", typ, got, err)
			continue
		}
		if k, err := d.KeyOf(parts); err != nil || k != e.Key() {
			t.Errorf("%s: key from the ID's parts %v (%v), the entity's %v", typ, k, err, e.Key())
		}
		for other, oe := range samples {
			if _, ok := d.WrapAny(oe); other != typ && ok {
				t.Errorf("%s's descriptor wraps a %s", typ, other)
			}
		}
	}
}

func TestDecodeRejectsMalformedNodeIDs(t *testing.T) {
	for _, bad := range []string{
		"", globalid.Encode("Nope", "x"), globalid.Encode("User", "only-one"),
		globalid.Encode("Organization", "a", "b"),
	} {
		if _, _, err := model.DecodeNode("id", bad); apperr.CodeOf(err) != apperr.CodeBadUserInput {
			t.Errorf("DecodeNode(%q) err = %v, want BAD_USER_INPUT", bad, err)
		}
	}
	if _, err := model.Organizations.Decode("organizationId", model.Tickets.IDOf("x")); apperr.CodeOf(err) != apperr.CodeBadUserInput {
		t.Errorf("a ticket id where an organization id is due: err = %v", err)
	}
	if _, err := model.Users.Decode("id", model.Users.IDOf("x")); apperr.CodeOf(err) != apperr.CodeBadUserInput {
		t.Errorf("a user id with one part: err = %v", err)
	}
}

// Each type's scope, decided from the ID's parts (and a ticket's after the read).
func TestDescriptorScopes(t *testing.T) {
	om := auth.Principal{Subject: "om", Roles: []auth.Role{auth.RoleOrgMember}, Org: "O1"}
	cu := auth.Principal{Subject: "c", Roles: []auth.Role{auth.RoleCustomer}, Customer: "C1"}
	sales := auth.Principal{Subject: "s", Roles: []auth.Role{auth.RoleSales}}
	hr := auth.Principal{Subject: "h", Roles: []auth.Role{auth.RoleHR}}
	admin := auth.Principal{Subject: "a", Roles: []auth.Role{auth.RoleAdmin}}
	cases := []struct {
		p     auth.Principal
		d     model.AnyNode
		parts []string
		want  auth.Decision
	}{
		{om, model.Organizations, []string{"O1"}, auth.Allow},
		{om, model.Organizations, []string{"O2"}, auth.Deny},
		{om, model.Users, []string{"O1", "U1"}, auth.Allow},
		{om, model.Users, []string{"O2", "U1"}, auth.Deny},
		{om, model.Tickets, []string{"O1", "T1"}, auth.Allow},
		{om, model.Tickets, []string{"O2", "T1"}, auth.Deny},
		{om, model.Customers, []string{"C1"}, auth.Deny},
		{om, model.Departments, []string{"D1"}, auth.Deny},
		{admin, model.Tickets, []string{"O2", "T1"}, auth.Allow},
		{hr, model.Tickets, []string{"O1", "T1"}, auth.Deny},
		{hr, model.Employees, []string{"E1"}, auth.Allow},
		{hr, model.Locations, []string{"US", "CA", "SF", "94105", "L1"}, auth.Allow},
		{hr, model.Orders, []string{"C1", "O1"}, auth.Deny},
		{cu, model.Customers, []string{"C1"}, auth.Allow},
		{cu, model.Customers, []string{"C2"}, auth.Deny},
		{cu, model.Orders, []string{"C1", "X"}, auth.Allow},
		{cu, model.Orders, []string{"C2", "X"}, auth.Deny},
		{sales, model.Orders, []string{"C2", "X"}, auth.Allow},
		{sales, model.Organizations, []string{"O1"}, auth.Deny},
		{cu, model.Products, []string{"P1"}, auth.Allow},
		{om, model.Products, []string{"P1"}, auth.Deny},
		{cu, model.Warehouses, []string{"W1"}, auth.Deny},
		{hr, model.Warehouses, []string{"W1"}, auth.Allow},
		{sales, model.Warehouses, []string{"W1"}, auth.Allow},
	}
	for _, c := range cases {
		if got := c.p.Sees(c.d.ScopeOf(c.parts)); got != c.want {
			t.Errorf("%v sees %s %v: %v, want %v", c.p.Roles, c.d.TypeName(), c.parts, got, c.want)
		}
	}
}

// servedSchema is the schema the server serves, loaded from the files graph embeds and parses
// (graph/*.graphqls) rather than through graph itself: importing graph from a test of model
// would make go test compile graph's generated code once more, against model's test build.
func servedSchema(t *testing.T) *ast.Schema {
	t.Helper()
	schema, err := schemafiles.Load("..")
	if err != nil {
		t.Fatalf("loading the schema: %v", err)
	}
	return schema
}
