package auth_test

import (
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"singletable/auth"
	"singletable/graph/schemafiles"
)

// Deny by default: every root field, mutation and subscription of the schema has a policy, and every policy
// names a field the schema has. (Every Node type's scope is its descriptor's, graph/model.)
func TestEveryRootFieldHasAPolicy(t *testing.T) {
	schema := servedSchema(t)
	seen := map[string]bool{}
	if schema.Subscription == nil || len(schema.Subscription.Fields) == 0 {
		t.Fatal("the schema has no subscriptions: this test would not see them")
	}
	for _, root := range []*ast.Definition{schema.Query, schema.Mutation, schema.Subscription} {
		if root == nil {
			continue
		}
		for _, f := range root.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue // introspection follows its own setting
			}
			seen[root.Name+"."+f.Name] = true
			if !auth.HasPolicy(root.Name, f.Name) {
				t.Errorf("%s.%s has no policy in auth's rootPolicy: everyone is refused until it gets one", root.Name, f.Name)
			}
		}
	}
	for _, k := range auth.PolicyNames() {
		if !seen[k] {
			t.Errorf("policy %s names no field of the schema", k)
		}
	}
}

// servedSchema is the schema the server serves, loaded from the files graph embeds and parses
// (graph/*.graphqls) rather than through graph itself: importing graph from a test of auth would
// make go test compile graph's generated code once more, against auth's test build.
func servedSchema(t *testing.T) *ast.Schema {
	t.Helper()
	schema, err := schemafiles.Load("../graph")
	if err != nil {
		t.Fatalf("loading the schema: %v", err)
	}
	return schema
}
