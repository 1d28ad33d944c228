package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
)

// Limits bound the shape of a GraphQL document. They are checked by a pre-pass that runs before
// gqlparser's validation and gqlgen's complexity walk see the document, so that neither of them
// ever works on an unbounded document: both expand fragments, and gqlparser's
// OverlappingFieldsCanBeMerged rule is quadratic in the fields of one selection set.
type Limits struct {
	// QueryBytes caps the document's length in bytes, comments and white space included
	// (GRAPHQL_MAX_QUERY_BYTES).
	QueryBytes int
	// Depth caps how deeply fields nest; fragments add no level of their own (GRAPHQL_MAX_DEPTH).
	Depth int
	// Fields caps the fields of the document counted with every fragment spread expanded where
	// it is used (GRAPHQL_MAX_FIELDS).
	Fields int
	// Aliases caps the aliased fields, counted after fragment expansion (GRAPHQL_MAX_ALIASES).
	Aliases int
	// Repeats caps how often one response key (field name or alias) occurs in one selection
	// set, fragments merged (GRAPHQL_MAX_FIELD_REPEATS).
	Repeats int
}

// Defaults of Limits' zero values.
const (
	DefaultMaxQueryBytes   = 64 << 10
	DefaultMaxDepth        = 15
	DefaultMaxFields       = 500
	DefaultMaxAliases      = 100
	DefaultMaxFieldRepeats = 10
)

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.QueryBytes, DefaultMaxQueryBytes)
	def(&l.Depth, DefaultMaxDepth)
	def(&l.Fields, DefaultMaxFields)
	def(&l.Aliases, DefaultMaxAliases)
	def(&l.Repeats, DefaultMaxFieldRepeats)
	return l
}

// limitError is a refused document: a validation error a frontend developer can act on, with
// extensions.limit naming the bound and extensions.max its value.
func limitError(limit string, max int, format string, a ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, a...)
	errcode.Set(err, errcode.ValidationFailed)
	err.Extensions["limit"] = limit
	err.Extensions["max"] = max
	return err
}

// checkDocument walks every operation of doc with its fragment spreads expanded in place, and
// the selection sets of the fragment definitions themselves (validation looks at those too). It
// stops at the first bound crossed, so its own work is bounded by the limits, never by the 2^n
// fields of fragments that double at each level.
func checkDocument(doc *ast.QueryDocument, l Limits) *gqlerror.Error {
	return newBoundsWalker(doc, l).document()
}

func newBoundsWalker(doc *ast.QueryDocument, l Limits) *boundsWalker {
	return &boundsWalker{doc: doc, l: l, active: map[string]bool{}}
}

func (w *boundsWalker) document() *gqlerror.Error {
	doc := w.doc
	for _, op := range doc.Operations {
		if err := w.selectionSet(op.SelectionSet, 0, true); err != nil {
			return err
		}
	}
	for _, f := range doc.Fragments {
		w.active[f.Name] = true
		err := w.selectionSet(f.SelectionSet, 0, false)
		delete(w.active, f.Name)
		if err != nil {
			return err
		}
	}
	return nil
}

type boundsWalker struct {
	doc     *ast.QueryDocument
	l       Limits
	fields  int
	aliases int
	active  map[string]bool // fragments being expanded: a cycle is left to validation to report
}

// selectionSet checks one selection set at the given depth (the depth of its parent field).
// expand says whether fragment spreads are followed (operations) or not (fragment definitions,
// whose spreads are counted where an operation uses them).
func (w *boundsWalker) selectionSet(set ast.SelectionSet, depth int, expand bool) *gqlerror.Error {
	if len(set) == 0 {
		return nil
	}
	if depth+1 > w.l.Depth {
		return limitError("depth", w.l.Depth, "The query nests fields more than %d levels deep; split it into several queries or fetch the deeper levels by id.", w.l.Depth)
	}
	keys := map[string]int{}
	return w.merged(set, depth, expand, keys)
}

// merged walks the selections that merge into one response object: the set's own fields and
// those of the fragments spread into it, which all share keys.
func (w *boundsWalker) merged(set ast.SelectionSet, depth int, expand bool, keys map[string]int) *gqlerror.Error {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if err := w.field(s, depth, expand, keys); err != nil {
				return err
			}
		case *ast.InlineFragment:
			if err := w.merged(s.SelectionSet, depth, expand, keys); err != nil {
				return err
			}
		case *ast.FragmentSpread:
			if !expand || w.active[s.Name] {
				continue
			}
			def := w.doc.Fragments.ForName(s.Name)
			if def == nil {
				continue // validation reports the unknown fragment
			}
			w.active[s.Name] = true
			err := w.merged(def.SelectionSet, depth, expand, keys)
			delete(w.active, s.Name)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *boundsWalker) field(f *ast.Field, depth int, expand bool, keys map[string]int) *gqlerror.Error {
	w.fields++
	if w.fields > w.l.Fields {
		return limitError("fields", w.l.Fields, "The query selects more than %d fields (fragments counted each time they are used); ask for fewer fields or split the query.", w.l.Fields)
	}
	key := f.Alias
	if key == "" {
		key = f.Name
	}
	if key != f.Name {
		w.aliases++
		if w.aliases > w.l.Aliases {
			return limitError("aliases", w.l.Aliases, "The query uses more than %d aliases; ask for fewer aliased fields or split the query.", w.l.Aliases)
		}
	}
	keys[key]++
	if keys[key] > w.l.Repeats {
		return limitError("fieldRepeats", w.l.Repeats, "The field %q is selected more than %d times in one selection set; select it once.", key, w.l.Repeats)
	}
	return w.selectionSet(f.SelectionSet, depth+1, expand)
}

// documentBounds is the gqlgen extension that enforces Limits. It is an operation parameter
// mutator, the one hook gqlgen runs before it parses and validates a document: it checks the
// byte size, parses the document with the same token limit as gqlgen, and walks it with
// checkDocument. A document already in the parsed-query cache passed these checks before, so it
// is not parsed twice.
type documentBounds struct {
	limits     Limits
	tokenLimit int
	cache      graphql.Cache[*ast.QueryDocument]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = documentBounds{}

func (documentBounds) ExtensionName() string                   { return "DocumentBounds" }
func (documentBounds) Validate(graphql.ExecutableSchema) error { return nil }

func (b documentBounds) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	q := params.Query
	if q == "" {
		return nil // a persisted query sent by hash: the cache holds documents that passed
	}
	if len(q) > b.limits.QueryBytes {
		return limitError("queryBytes", b.limits.QueryBytes, "The query document is %d bytes long; this server accepts at most %d bytes (comments included). Use shorter documents or persisted queries.", len(q), b.limits.QueryBytes)
	}
	if b.cache != nil {
		if _, ok := b.cache.Get(ctx, q); ok {
			return nil
		}
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: q}, b.tokenLimit)
	if err != nil {
		gerr, ok := err.(*gqlerror.Error)
		if !ok {
			gerr = gqlerror.Wrap(err)
		}
		errcode.Set(gerr, errcode.ParseFailed)
		return gerr
	}
	return checkDocument(doc, b.limits)
}
