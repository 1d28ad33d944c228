package resolvers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"singletable/apperr"
	"singletable/graph/model"
	"singletable/loaders"
	"singletable/repository"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

const (
	idA = "01J00000000000000000000001"
	idB = "01J00000000000000000000002"
)

// One sample entity per node type.
var sampleEntities = map[string]repository.Entity{
	model.TypeOrganization: &repository.Organization{ID: idA},
	model.TypeUser:         &repository.User{OrgID: idA, ID: idB},
	model.TypeTicket:       &repository.Ticket{ID: idA, OrgID: idA, ReporterID: idB},
	model.TypeCustomer:     &repository.Customer{ID: idA},
	model.TypeOrder:        &repository.Order{CustomerID: idA, ID: idB},
	model.TypeDepartment:   &repository.Department{ID: idA},
	model.TypeEmployee:     &repository.Employee{ID: idA},
	model.TypeLocation:     &repository.Location{ID: idA, Country: "United States", State: "California", City: "San Francisco: SoMa", PostalCode: "94103"},
}

// Every row of the registry agrees with the model: the object it wraps carries a global ID that
// decodes to the row's type, and the key the row builds from that ID's parts is the entity's own.
func TestRegistryRowsRoundTripThroughGlobalIDs(t *testing.T) {
	if len(nodeTypes) != len(sampleEntities) {
		t.Fatalf("%d registry rows, %d node types", len(nodeTypes), len(sampleEntities))
	}
	for typ, e := range sampleEntities {
		row, ok := nodeTypes[typ]
		if !ok {
			t.Errorf("no registry row for %s", typ)
			continue
		}
		n := row.wrap(e)
		if n == nil {
			t.Errorf("%s: wrap gave nil", typ)
			continue
		}
		gotTyp, parts, err := model.DecodeID("id", n.GetID())
		if err != nil || gotTyp != typ {
			t.Errorf("%s: the wrapped object's ID decodes to %q, %v", typ, gotTyp, err)
			continue
		}
		k, err := row.key(parts)
		if err != nil || k != e.Key() {
			t.Errorf("%s: key from the ID's parts %v (%v), the entity's %v", typ, k, err, e.Key())
		}
		if row.kind == "" {
			t.Errorf("%s: no kind for NOT_FOUND", typ)
		}
		// A row wraps only its own type: a key of this type cannot hold another.
		for other, oe := range sampleEntities {
			if other != typ && row.wrap(oe) != nil {
				t.Errorf("%s's row wraps a %s", typ, other)
			}
		}
	}
}

func TestToNodeWrapsToTheRequestedType(t *testing.T) {
	c, err := toNode[*model.Customer](sampleEntities[model.TypeCustomer].(*repository.Customer), nil)
	if err != nil || c.ID != idA {
		t.Fatalf("toNode customer: %+v, %v", c, err)
	}
	boom := errors.New("boom")
	if _, err := toNode[*model.Customer]((*repository.Customer)(nil), boom); err != boom {
		t.Fatalf("toNode keeps the lookup's error: %v", err)
	}
	if _, err := toNode[*model.User](sampleEntities[model.TypeCustomer].(*repository.Customer), nil); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("an entity of another type is NOT_FOUND: %v", err)
	}
}

// The scope hook runs before anything is read: a refused ID never reaches the loaders (the context
// here has none, so a read would panic).
func TestScopeRefusesBeforeAnyRead(t *testing.T) {
	hidden := apperr.NotFound("user")
	orig := nodeTypes[model.TypeUser]
	t.Cleanup(func() { nodeTypes[model.TypeUser] = orig })
	row := orig
	var saw []string
	row.scope = func(_ context.Context, parts []string) error {
		saw = parts
		return hidden
	}
	nodeTypes[model.TypeUser] = row

	id := model.EncodeID(model.TypeUser, idA, idB)
	if _, err := resolveNode(context.Background(), "id", id); err != hidden {
		t.Fatalf("node(id:) of a refused user: %v", err)
	}
	if len(saw) != 2 || saw[0] != idA || saw[1] != idB {
		t.Fatalf("scope saw parts %v", saw)
	}
	if _, err := lookup[*model.User](context.Background(), "id", id, model.TypeUser); err != hidden {
		t.Fatalf("user(id:) of a refused user: %v", err)
	}
	if _, err := lookup[*model.User](context.Background(), "id", id, model.TypeTicket); apperr.CodeOf(err) != apperr.CodeBadUserInput {
		t.Fatalf("a user's ID given as a ticket's: %v", err)
	}
}

// nodes(ids:) checks every ID's scope before it reads anything: a refused ID is null with its
// own NOT_FOUND at its index, and nothing is looked up for it (the loaders here have no
// repository, so a lookup would panic).
func TestNodesRefusesOutOfScopeIDsWithoutReading(t *testing.T) {
	hidden := apperr.NotFound("user")
	orig := nodeTypes[model.TypeUser]
	t.Cleanup(func() { nodeTypes[model.TypeUser] = orig })
	row := orig
	row.scope = func(context.Context, []string) error { return hidden }
	nodeTypes[model.TypeUser] = row

	schema, err := gqlparser.LoadSchema(schemaSources(t)...)
	if err != nil {
		t.Fatal(err)
	}
	doc, errs := gqlparser.LoadQueryWithRules(schema, `{ nodes(ids: ["a", "b"]) { id ... on User { name } } }`, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	op := &graphql.OperationContext{Doc: doc, Operation: doc.Operations[0]}
	field := graphql.CollectFields(op, doc.Operations[0].SelectionSet, []string{"Query"})[0]
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover)
	ctx = graphql.WithOperationContext(ctx, op)
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: field})
	ctx = loaders.NewContext(ctx, loaders.New(nil, loaders.Options{}))

	ids := []string{model.EncodeID(model.TypeUser, idA, idB), model.EncodeID(model.TypeUser, idB, idA)}
	out, err := resolveNodes(ctx, ids)
	if err != nil || len(out) != 2 || out[0] != nil || out[1] != nil {
		t.Fatalf("nodes: %v, %v", out, err)
	}
	got := graphql.GetErrors(ctx)
	if len(got) != 2 {
		t.Fatalf("errors %v, want one per refused ID", got)
	}
	for i, e := range got {
		if !errors.Is(e, hidden) || e.Path.String() != fmt.Sprintf("nodes[%d]", i) {
			t.Errorf("error %d: %v at %v", i, e, e.Path)
		}
	}
}

// schemaSources are the server's schema files.
func schemaSources(t *testing.T) []*ast.Source {
	t.Helper()
	files, err := filepath.Glob("../graph/*.graphqls")
	if err != nil || len(files) == 0 {
		t.Fatalf("schema files: %v", err)
	}
	var out []*ast.Source
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &ast.Source{Name: f, Input: string(b)})
	}
	return out
}

// Every row has its before-read scope check: a row without one would serve every caller, so the
// registry refuses such a row (resolveDecoded, resolveNodes) and this test names it.
func TestEveryRegistryRowHasAScope(t *testing.T) {
	for typ, row := range nodeTypes {
		if row.scope == nil {
			t.Errorf("node type %s has no scope hook", typ)
		}
	}
}
