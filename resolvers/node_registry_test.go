package resolvers

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"singletable/apperr"
	"singletable/auth"
	"singletable/graph/model"
	"singletable/graph/schemafiles"
	"singletable/loaders"
	"singletable/repository/store"
)

const (
	idA = "01J00000000000000000000001"
	idB = "01J00000000000000000000002"
)

// outsider is an org member of another organization than idA: every user of idA is outside its
// scope.
var outsider = auth.Principal{Subject: "om", Roles: []auth.Role{auth.RoleOrgMember}, Org: idB}

// The scope check runs before anything is read: a refused ID never reaches the loaders (the
// context here has none, so a read would panic), and is the NOT_FOUND of a missing user.
func TestScopeRefusesBeforeAnyRead(t *testing.T) {
	ctx := auth.WithPrincipal(context.Background(), outsider)
	id := model.Users.IDOf(idA, idB)
	if _, err := resolveNode(ctx, "id", id); apperr.CodeOf(err) != apperr.CodeNotFound || err.Error() != "NOT_FOUND: user not found" {
		t.Fatalf("node(id:) of a refused user: %v", err)
	}
	if _, err := resolveTyped(ctx, model.Users, "id", id); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("user(id:) of a refused user: %v", err)
	}
	if _, err := resolveTyped(ctx, model.Tickets, "id", id); apperr.CodeOf(err) != apperr.CodeBadUserInput {
		t.Fatalf("a user's ID given as a ticket's: %v", err)
	}
}

// nodes(ids:) checks every ID's scope before it reads anything: a refused ID is null with its
// own NOT_FOUND at its index, and nothing is looked up for it (the loaders here have no
// tables, so a lookup would panic).
func TestNodesRefusesOutOfScopeIDsWithoutReading(t *testing.T) {
	schema, err := gqlparser.LoadSchema(schemaSources(t)...)
	if err != nil {
		t.Fatal(err)
	}
	doc, errs := gqlparser.LoadQueryWithRules(schema, `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on User { name } } }`, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ids := []string{model.Users.IDOf(idA, idB), model.Users.IDOf(idA, idA)}
	op := &graphql.OperationContext{Doc: doc, Operation: doc.Operations[0], Variables: map[string]any{"ids": []any{ids[0], ids[1]}}}
	field := graphql.CollectFields(op, doc.Operations[0].SelectionSet, []string{"Query"})[0]
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover)
	ctx = graphql.WithOperationContext(ctx, op)
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: field})
	ctx = loaders.NewContext(ctx, loaders.New(&store.Store{}, loaders.Options{}))
	ctx = auth.WithPrincipal(ctx, outsider)

	out, err := resolveNodes(ctx, ids)
	if err != nil || len(out) != 2 || out[0] != nil || out[1] != nil {
		t.Fatalf("nodes: %v, %v", out, err)
	}
	got := graphql.GetErrors(ctx)
	if len(got) != 2 {
		t.Fatalf("errors %v, want one per refused ID", got)
	}
	for i, e := range got {
		var coded *apperr.Error
		if !errors.As(e, &coded) || coded.Code != apperr.CodeNotFound || coded.Message != "user not found" || e.Path.String() != fmt.Sprintf("nodes[%d]", i) {
			t.Errorf("error %d: %v at %v", i, e, e.Path)
		}
	}
}

// schemaSources are the server's schema files.
func schemaSources(t *testing.T) []*ast.Source {
	t.Helper()
	sources, err := schemafiles.Sources("../graph")
	if err != nil {
		t.Fatalf("schema files: %v", err)
	}
	return sources
}
