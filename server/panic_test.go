package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"singletable/auth"
	"singletable/loaders"
	"singletable/repository/store/storetest"
)

// A panic in one resolver becomes one field error (INTERNAL_SERVER_ERROR, no stack in the
// response), the other fields resolve, and the server keeps serving.
func TestResolverPanicIsOneFieldError(t *testing.T) {
	repo := storetest.New(t)
	var logs bytes.Buffer
	cfg := Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil))}
	gql := newGraphQL(repo, cfg).(*handler.Server)
	gql.Use(panicAt{alias: "boom"})
	ts := httptest.NewServer(withRequestContext(Config{Logger: cfg.Logger, OperationTimeout: 10e9}, withAuthentication(auth.Disabled(), loaders.Middleware(repo, loaders.Options{})(gql))))
	defer ts.Close()
	if _, err := repo.CreateOrganization(t.Context(), "Survivor"); err != nil {
		t.Fatal(err)
	}
	post := func(q string) map[string]any {
		body, _ := json.Marshal(map[string]string{"query": q})
		resp, err := http.Post(ts.URL, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%d %s", resp.StatusCode, raw)
		}
		return out
	}
	out := post(`{ organizations { edges { node { name boom: createdAt } } } }`)
	errs, _ := out["errors"].([]any)
	if len(errs) != 1 {
		t.Fatalf("errors %v", out["errors"])
	}
	e := errs[0].(map[string]any)
	if e["extensions"].(map[string]any)["code"] != "INTERNAL_SERVER_ERROR" || strings.Contains(e["message"].(string), "kaboom") {
		t.Fatalf("error %v", e)
	}
	if !strings.Contains(logs.String(), "kaboom") || !strings.Contains(logs.String(), "goroutine") {
		t.Fatalf("the panic and its stack should be logged: %s", logs.String())
	}
	again := post(`{ organizations { edges { node { name } } } }`)
	if again["errors"] != nil || !strings.Contains(toJSON(again["data"]), "Survivor") {
		t.Fatalf("server did not keep serving: %v", again)
	}
}

// panicAt makes the field answered under alias panic. It wraps the operation's field middleware
// (fieldGuard, which a registered field interceptor would not pass: TestOneFieldMiddleware), so
// the panic is raised where a resolver's would be.
type panicAt struct{ alias string }

func (panicAt) ExtensionName() string                   { return "PanicAt" }
func (panicAt) Validate(graphql.ExecutableSchema) error { return nil }

func (p panicAt) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	next := oc.ResolverMiddleware
	oc.ResolverMiddleware = func(ctx context.Context, resolve graphql.Resolver) (any, error) {
		if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Field.Alias == p.alias {
			panic("kaboom")
		}
		return next(ctx, resolve)
	}
	return nil
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
