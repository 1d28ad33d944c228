package server

import (
	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// inlineDeferredSpreads replaces, in oc's operation, each fragment spread that carries @defer by
// an inline fragment with the fragment's type condition, the spread's directives and the
// fragment's selections. gqlgen collects a fragment once per object (graphql.CollectFields skips
// a spread of a fragment it has already visited, deferred or not): in `...F @defer ...F` the
// second spread counted for nothing, so F's fields were deferred although the same object selects
// them without @defer too. An inline fragment is collected wherever it stands, and a field
// selected both inside and outside deferred fragments is not deferred (CollectedField.IsDeferred),
// as the incremental-delivery spec has it. The answer is the same: inline fragments and spreads
// of the same selections select the same fields.
//
// The parsed document is cached and shared by requests: what changes is copied, never changed.
func inlineDeferredSpreads(oc *graphql.OperationContext) {
	if oc.Doc == nil || oc.Operation == nil || !hasDefer(oc.Doc, true) {
		return
	}
	r := spreadInliner{doc: oc.Doc, done: map[string]*ast.FragmentDefinition{}}
	doc := *oc.Doc
	doc.Fragments = make(ast.FragmentDefinitionList, len(oc.Doc.Fragments))
	for i, f := range oc.Doc.Fragments {
		doc.Fragments[i] = r.fragment(f.Name)
	}
	op := *oc.Operation
	op.SelectionSet, _ = r.set(oc.Operation.SelectionSet)
	doc.Operations = make(ast.OperationList, len(oc.Doc.Operations))
	for i, o := range oc.Doc.Operations {
		if o == oc.Operation {
			o = &op
		}
		doc.Operations[i] = o
	}
	oc.Doc, oc.Operation = &doc, &op
}

// spreadInliner rewrites one document's selections; done is each fragment rewritten, so that a
// fragment spread many times is rewritten once and its copies share their selections.
type spreadInliner struct {
	doc  *ast.QueryDocument
	done map[string]*ast.FragmentDefinition
}

// fragment is the fragment named name with its deferred spreads inlined (the fragment itself when
// it has none), nil when the document has no such fragment.
func (r spreadInliner) fragment(name string) *ast.FragmentDefinition {
	if f, ok := r.done[name]; ok {
		return f
	}
	f := r.doc.Fragments.ForName(name)
	if f == nil {
		return nil
	}
	r.done[name] = f // validation refuses cycles; this ends one anyway
	if sel, changed := r.set(f.SelectionSet); changed {
		c := *f
		c.SelectionSet = sel
		f = &c
	}
	r.done[name] = f
	return f
}

// set is sel rewritten; changed is false when nothing in it was, and sel is returned as it is.
func (r spreadInliner) set(sel ast.SelectionSet) (_ ast.SelectionSet, changed bool) {
	var out ast.SelectionSet
	for i, s := range sel {
		n, ch := r.one(s)
		if ch && out == nil {
			out = append(make(ast.SelectionSet, 0, len(sel)), sel[:i]...)
		}
		if out != nil {
			out = append(out, n)
		}
	}
	if out == nil {
		return sel, false
	}
	return out, true
}

// one is s rewritten: a deferred spread inlined, a field or inline fragment copied when something
// under it was rewritten.
func (r spreadInliner) one(s ast.Selection) (ast.Selection, bool) {
	switch s := s.(type) {
	case *ast.Field:
		if sub, changed := r.set(s.SelectionSet); changed {
			c := *s
			c.SelectionSet = sub
			return &c, true
		}
	case *ast.InlineFragment:
		if sub, changed := r.set(s.SelectionSet); changed {
			c := *s
			c.SelectionSet = sub
			return &c, true
		}
	case *ast.FragmentSpread:
		f := r.fragment(s.Name)
		if s.Directives.ForName("defer") == nil || f == nil {
			return s, false
		}
		return &ast.InlineFragment{TypeCondition: f.TypeCondition, Directives: s.Directives, SelectionSet: f.SelectionSet, ObjectDefinition: f.Definition, Position: s.Position}, true
	}
	return s, false
}
