package server

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Deferred fields are ABSENT from the payload before theirs. gqlgen's executor writes a deferred
// field as null in the payload that precedes it (graphql.FieldSet.ResolveConcurrently keeps Null
// in its slot), which incremental delivery forbids: a client takes a null for the field's value,
// and Apollo Client reports such a result as complete, with the data missing. deferredFields
// takes them out again, from the data gqlgen marshalled, without touching generated code: it
// walks the data along the operation's selections, collecting each object's fields for the
// object's concrete type as gqlgen does (graphql.CollectFields, the same @defer and @include/@skip
// rules, the same variables), and drops each null that gqlgen left for a deferred field: one that
// is deferred on that type (CollectedField.IsDeferred: selected only inside deferred fragments)
// and resolved apart from its object (resolvedApart). A field selected outside a deferred
// fragment on that type, or read from its object, stays, null or not.
type deferredFields struct {
	oc     *graphql.OperationContext
	schema *ast.Schema
	apart  map[string]bool // resolvedApart
	types  *objectTypes    // the concrete types of the operation's abstract objects
}

// initial is the first payload's data without its deferred fields. Root fields are never
// deferred (gqlgen resolves them all for the first payload), so they stay.
func (d deferredFields) initial(data json.RawMessage) (json.RawMessage, any, error) {
	root := d.rootType()
	if root == nil {
		return d.strip(data, nil, "", nil, true)
	}
	return d.strip(data, d.oc.Operation.SelectionSet, root.Name, nil, true)
}

// incremental is the data of an incremental payload, the fields of a deferred fragment of the
// object at path, without the fields deferred further inside it (a nested @defer): its own fields
// are the ones it delivers, so they stay. It returns the data decoded as well.
func (d deferredFields) incremental(data json.RawMessage, path ast.Path) (json.RawMessage, any, error) {
	root := d.rootType()
	if root == nil {
		return d.strip(data, nil, "", nil, true)
	}
	sel, typ := d.oc.Operation.SelectionSet, root.Name
	for i, el := range path {
		name, ok := el.(ast.PathName)
		if !ok {
			continue // a list index: the same selections, on each element
		}
		fields, _ := d.fields(sel, typ, path[:i])
		f, ok := fields[string(name)]
		if !ok || f.Definition == nil {
			return d.strip(data, nil, "", nil, true)
		}
		sel, typ = f.Selections, f.Definition.Type.Name()
	}
	return d.strip(data, sel, typ, path, true)
}

func (d deferredFields) rootType() *ast.Definition {
	switch d.oc.Operation.Operation {
	case ast.Mutation:
		return d.schema.Mutation
	case ast.Subscription:
		return d.schema.Subscription
	}
	return d.schema.Query
}

// strip decodes data (keeping its keys' order), drops the deferred nulls of the object at path,
// and encodes it again; it returns the decoded data too. No selections (sel nil) drop nothing.
func (d deferredFields) strip(data json.RawMessage, sel ast.SelectionSet, typ string, path ast.Path, keepTop bool) (json.RawMessage, any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return data, nil, err
	}
	if sel == nil {
		return data, v, nil
	}
	d.value(v, sel, typ, path, keepTop)
	var out bytes.Buffer
	encodeOrdered(&out, v)
	return out.Bytes(), v, nil
}

// value walks v, the value at path of a field of type typ selecting sel (an object, a list of
// them, or a leaf), dropping deferred nulls. keepTop keeps the nulls of v's own fields.
func (d deferredFields) value(v any, sel ast.SelectionSet, typ string, path ast.Path, keepTop bool) {
	switch v := v.(type) {
	case []any:
		for i, e := range v {
			d.value(e, sel, typ, append(path[:len(path):len(path)], ast.PathIndex(i)), keepTop)
		}
	case *orderedObject:
		if len(sel) == 0 {
			return
		}
		fields, concrete := d.fields(sel, typ, path)
		kept := v.entries[:0]
		for _, e := range v.entries {
			f, ok := fields[e.key]
			if !keepTop && isNull(e.value) && (concrete == "" || d.deferred(concrete, f)) {
				continue // see objectTypes for an object whose type is not known
			}
			if ok && f.Definition != nil {
				d.value(e.value, f.Selections, f.Definition.Type.Name(), append(path[:len(path):len(path)], ast.PathName(e.key)), false)
			}
			kept = append(kept, e)
		}
		v.entries = kept
	}
}

// deferred says gqlgen left a null in f's place for a later payload: f is deferred on its object's
// type (typ), and resolved apart from the object.
func (d deferredFields) deferred(typ string, f graphql.CollectedField) bool {
	return f.Field != nil && f.IsDeferred() && d.apart[typ+"."+f.Name]
}

// fields is what sel selects on the object at path by response key, collected for the object's
// concrete type: typ, or the type recorded for the object when typ is abstract. concrete is that
// type, "" when typ is abstract and no type was recorded for the object.
func (d deferredFields) fields(sel ast.SelectionSet, typ string, path ast.Path) (_ map[string]graphql.CollectedField, concrete string) {
	def := d.schema.Types[typ]
	if def != nil && def.IsAbstractType() {
		def = d.schema.Types[d.types.of(path)]
	}
	if def == nil {
		return nil, ""
	}
	out := map[string]graphql.CollectedField{}
	for _, f := range graphql.CollectFields(d.oc, sel, d.satisfies(def)) {
		out[f.Alias] = f
	}
	return out, def.Name
}

// satisfies is what gqlgen's generated code passes to CollectFields for an object of type t: its
// name, then its interfaces and unions.
func (d deferredFields) satisfies(t *ast.Definition) []string {
	out := []string{t.Name}
	for _, i := range d.schema.GetImplements(t) {
		if !slices.Contains(out, i.Name) {
			out = append(out, i.Name)
		}
	}
	return out
}
