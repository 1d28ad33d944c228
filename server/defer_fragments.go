package server

import (
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// deferredFragments rewrites an operation's deferred fragments, before gqlgen runs it, around two
// faults of its executor, so that each deferred fragment is delivered as the incremental-delivery
// spec has it:
//   - a fragment spread that carries @defer, or stands in a deferred fragment (of the same
//     object), becomes an inline fragment (the fragment's type condition, the spread's
//     directives, the fragment's selections). graphql.CollectFields collects a fragment once per
//     object, deferred or not: in `...F @defer ...F` (or `... @defer { ...F } ...F`) the second
//     spread counted for nothing, and F's fields were deferred although the object also selects
//     them without @defer. An inline fragment is collected wherever it stands, and a field
//     selected both inside and outside deferred fragments is not deferred.
//   - each deferred fragment gets a label of its own (its label, then labelMark and a number;
//     restoreLabel takes them off the payloads). gqlgen waits for a field once per label it is
//     deferred under: a field in two deferred fragments of one object with the same label (two
//     without a label, say) was waited for twice, resolved once, and the payload never came.
//     Apart, each fragment has its payload, and a field in two of them comes in one.
//
// The answer is the same: inline fragments and spreads of the same selections select the same
// fields. ok is false when the document has more deferred fragments and inlined spreads than
// maxDeferredFragments.
func deferredFragments(oc *graphql.OperationContext) (ok bool) {
	if oc.Doc == nil || oc.Operation == nil || !hasDefer(oc.Doc) {
		return true
	}
	r := &fragmentRewriter{doc: oc.Doc, vars: oc.Variables, shared: map[string]*ast.FragmentDefinition{}}
	sel := r.set(oc.Operation.SelectionSet, false)
	if r.copies > maxDeferredFragments {
		return false
	}
	rewriteOperation(oc, sel, func(f *ast.FragmentDefinition) *ast.FragmentDefinition {
		if c := r.shared[f.Name]; c != nil {
			return c // rewritten: a plain spread reaches it; else only deferred spreads did
		}
		return f
	})
	return true
}

// maxDeferredFragments bounds the deferred fragments and inlined spreads of one operation once its
// spreads are inlined (a fragment spread with @defer in a fragment spread with @defer, and so on,
// is copied as many times): each deferred fragment is a payload, and the copies are made before
// any limit of the operation's price applies.
const maxDeferredFragments = 1000

// labelMark separates a deferred fragment's label from the number deferredFragments adds to it.
const labelMark = "\x00"

// restoreLabel is a payload's label as the operation gave it.
func restoreLabel(label string) string {
	if i := strings.LastIndex(label, labelMark); i >= 0 {
		return label[:i]
	}
	return label
}

// fragmentRewriter rewrites one document's selections. shared holds each fragment that a plain
// spread reaches, as plain spreads see it (collected once per object, so a label in it is never
// twice an object's); each inlined spread gets a copy of its own, with labels of its own. labels
// counts the deferred fragments, copies them and the inlined spreads.
type fragmentRewriter struct {
	doc            *ast.QueryDocument
	vars           map[string]any
	shared         map[string]*ast.FragmentDefinition
	labels, copies int
}

// fragment is the fragment named name rewritten, as plain spreads see it; nil when the document
// has no such fragment.
func (r *fragmentRewriter) fragment(name string) *ast.FragmentDefinition {
	if f, ok := r.shared[name]; ok {
		return f
	}
	f := r.doc.Fragments.ForName(name)
	if f == nil {
		return nil
	}
	r.shared[name] = f // validation refuses cycles; this ends one anyway
	c := *f
	c.SelectionSet = r.set(f.SelectionSet, false)
	r.shared[name] = &c
	return &c
}

// set is a copy of sel rewritten; inDefer says sel is in a deferred fragment of its object. Past
// maxDeferredFragments it copies no more.
func (r *fragmentRewriter) set(sel ast.SelectionSet, inDefer bool) ast.SelectionSet {
	if r.copies > maxDeferredFragments {
		return sel
	}
	out := make(ast.SelectionSet, len(sel))
	for i, s := range sel {
		out[i] = r.one(s, inDefer)
	}
	return out
}

// one is s rewritten: a spread inlined if deferred or in a deferred fragment, a deferred fragment
// labelled apart.
func (r *fragmentRewriter) one(s ast.Selection, inDefer bool) ast.Selection {
	switch s := s.(type) {
	case *ast.Field:
		c := *s
		c.SelectionSet = r.set(s.SelectionSet, false) // another object
		return &c
	case *ast.InlineFragment:
		c := *s
		c.Directives = r.relabel(s.Directives)
		c.SelectionSet = r.set(s.SelectionSet, inDefer || s.Directives.ForName("defer") != nil)
		return &c
	case *ast.FragmentSpread:
		deferred := s.Directives.ForName("defer") != nil
		f := r.doc.Fragments.ForName(s.Name)
		if f == nil || !deferred && !inDefer {
			r.fragment(s.Name)
			return s
		}
		if !deferred {
			r.copies++ // relabel counts the deferred ones
		}
		dirs := r.relabel(s.Directives)
		return &ast.InlineFragment{TypeCondition: f.TypeCondition, Directives: dirs, SelectionSet: r.set(f.SelectionSet, true), ObjectDefinition: f.Definition, Position: s.Position}
	}
	return s
}

// relabel is dirs with @defer's label made its own (labelMark and a number added); dirs as they
// are when they hold no @defer.
func (r *fragmentRewriter) relabel(dirs ast.DirectiveList) ast.DirectiveList {
	d := dirs.ForName("defer")
	if d == nil {
		return dirs
	}
	r.labels++
	r.copies++
	label := ""
	c := *d
	c.Arguments = nil
	for _, a := range d.Arguments {
		if a.Name == "label" {
			if v, err := a.Value.Value(r.vars); err == nil {
				label, _ = v.(string)
			}
			continue
		}
		c.Arguments = append(c.Arguments, a)
	}
	value := &ast.Value{Kind: ast.StringValue, Raw: label + labelMark + strconv.Itoa(r.labels), Position: d.Position}
	c.Arguments = append(c.Arguments, &ast.Argument{Name: "label", Value: value, Position: d.Position})
	out := make(ast.DirectiveList, len(dirs))
	for i, x := range dirs {
		if x == d {
			x = &c
		}
		out[i] = x
	}
	return out
}
