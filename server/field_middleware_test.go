package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/extension"
)

// fieldGuard sets itself as each operation's field middleware in place of gqlgen's chain of
// registered interceptors: one registered beside it would never run. None may be, neither of this
// package's extensions nor of gqlgen's that the server uses.
func TestOneFieldMiddleware(t *testing.T) {
	for _, ext := range []any{extension.Introspection{}, extension.AutomaticPersistedQuery{}} {
		if _, ok := ext.(graphql.FieldInterceptor); ok {
			t.Errorf("%T is a field interceptor: fieldGuard would bypass it", ext)
		}
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Recv != nil && n.Name.Name == "InterceptField" && !strings.Contains(types(n.Recv), "fieldGuard") {
					t.Errorf("%s: %s.InterceptField: a field interceptor fieldGuard would bypass; make it part of fieldGuard", fset.Position(n.Pos()), types(n.Recv))
				}
			case *ast.SelectorExpr:
				if n.Sel.Name == "AroundFields" {
					t.Errorf("%s: AroundFields registers a field interceptor fieldGuard would bypass; make it part of fieldGuard", fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
}

// types spells the receiver's type.
func types(recv *ast.FieldList) string {
	var b strings.Builder
	for _, f := range recv.List {
		ast.Inspect(f.Type, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				b.WriteString(id.Name)
			}
			return true
		})
	}
	return b.String()
}
