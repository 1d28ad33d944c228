package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// wholeResult answers an operation with @defer in one payload, the whole result, when the request
// did not come by an incremental transport (multipart/mixed or Server-Sent Events: incremental):
// a POST or GET whose Accept is application/json, as the incremental-delivery spec allows. gqlgen's
// POST and GET transports write the first payload alone, and the deferred reads would still run,
// for nobody. So the operation runs as if no fragment were deferred: its copy without @defer
// replaces it in the operation context (the parsed document is cached and shared by requests, so
// it is copied, never changed). Variables, @include/@skip and everything else stay as they were;
// the plan, the price and the calls are those of the same operation without @defer. An explain
// keeps its @defer: it runs nothing, and its steps say which payload each belongs to.
type wholeResult struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = wholeResult{}

func (wholeResult) ExtensionName() string                   { return "WholeResult" }
func (wholeResult) Validate(graphql.ExecutableSchema) error { return nil }

func (wholeResult) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if incrementalRequest(ctx) || explainRequested(oc) || oc.Doc == nil || oc.Operation == nil || !hasDefer(oc.Doc) {
		return nil
	}
	rewriteOperation(oc, undeferred(oc.Operation.SelectionSet), func(f *ast.FragmentDefinition) *ast.FragmentDefinition {
		c := *f
		c.SelectionSet = undeferred(f.SelectionSet)
		return &c
	})
	return nil
}

// rewriteOperation puts copies in oc of its document and operation, the operation selecting sel
// and each fragment f replaced by fragment(f). The parsed document is cached and shared by
// requests: it is copied, never changed.
func rewriteOperation(oc *graphql.OperationContext, sel ast.SelectionSet, fragment func(*ast.FragmentDefinition) *ast.FragmentDefinition) {
	doc := *oc.Doc
	doc.Fragments = make(ast.FragmentDefinitionList, len(oc.Doc.Fragments))
	for i, f := range oc.Doc.Fragments {
		doc.Fragments[i] = fragment(f)
	}
	op := *oc.Operation
	op.SelectionSet = sel
	doc.Operations = make(ast.OperationList, len(oc.Doc.Operations))
	for i, o := range oc.Doc.Operations {
		if o == oc.Operation {
			o = &op
		}
		doc.Operations[i] = o
	}
	oc.Doc, oc.Operation = &doc, &op
}

// hasDefer reports whether a fragment of doc carries @defer.
func hasDefer(doc *ast.QueryDocument) bool {
	found := false
	visit := func(s ast.Selection) {
		switch s := s.(type) {
		case *ast.InlineFragment:
			found = found || s.Directives.ForName("defer") != nil
		case *ast.FragmentSpread:
			found = found || s.Directives.ForName("defer") != nil
		}
	}
	for _, op := range doc.Operations {
		eachSelection(op.SelectionSet, nil, visit)
	}
	for _, f := range doc.Fragments {
		eachSelection(f.SelectionSet, nil, visit)
	}
	return found
}

// eachSelection calls visit with each selection in sel, the ones under its fields and inline
// fragments included, and those of the fragments its spreads name in fragments (none when
// fragments is nil).
func eachSelection(sel ast.SelectionSet, fragments ast.FragmentDefinitionList, visit func(ast.Selection)) {
	for _, s := range sel {
		visit(s)
		switch s := s.(type) {
		case *ast.Field:
			eachSelection(s.SelectionSet, fragments, visit)
		case *ast.InlineFragment:
			eachSelection(s.SelectionSet, fragments, visit)
		case *ast.FragmentSpread:
			if f := fragments.ForName(s.Name); f != nil {
				eachSelection(f.SelectionSet, fragments, visit)
			}
		}
	}
}

// undeferred is a copy of sel whose fragments carry no @defer.
func undeferred(sel ast.SelectionSet) ast.SelectionSet {
	out := make(ast.SelectionSet, len(sel))
	for i, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			c := *s
			c.SelectionSet = undeferred(s.SelectionSet)
			out[i] = &c
		case *ast.InlineFragment:
			c := *s
			c.Directives = withoutDefer(s.Directives)
			c.SelectionSet = undeferred(s.SelectionSet)
			out[i] = &c
		case *ast.FragmentSpread:
			c := *s
			c.Directives = withoutDefer(s.Directives)
			out[i] = &c
		default:
			out[i] = s
		}
	}
	return out
}

func withoutDefer(ds ast.DirectiveList) ast.DirectiveList {
	var out ast.DirectiveList
	for _, d := range ds {
		if d.Name != "defer" {
			out = append(out, d)
		}
	}
	return out
}
