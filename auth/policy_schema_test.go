package auth_test

import (
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"singletable/auth"
	"singletable/graph"
)

// Deny by default: every root field, mutation and subscription of the schema has a policy, and every policy
// names a field the schema has. (Every Node type's scope is its descriptor's, graph/model.)
func TestEveryRootFieldHasAPolicy(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
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
