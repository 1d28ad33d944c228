package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Deferred fields are ABSENT from the payload before theirs. gqlgen's executor writes a deferred
// field as null in the payload that precedes it (graphql.FieldSet.ResolveConcurrently keeps Null
// in its slot), which incremental delivery forbids: a client takes a null for the field's value,
// and Apollo Client reports such a result as complete, with the data missing. deferredFields
// takes them out again, from the data gqlgen marshalled, without touching generated code: it
// walks the data along the operation's selections, collecting each object's fields as gqlgen
// does (graphql.CollectFields, the same @defer and @include/@skip rules, the same variables),
// and drops every null whose field is deferred there. A field also selected outside a deferred
// fragment is not deferred (CollectedField.IsDeferred), so it stays, null or not.
type deferredFields struct {
	oc     *graphql.OperationContext
	schema *ast.Schema
}

// initial is the first payload's data without its deferred fields. Root fields are never
// deferred (gqlgen resolves them all for the first payload), so they stay.
func (d deferredFields) initial(data json.RawMessage) (json.RawMessage, any, error) {
	root := d.rootType()
	if root == nil {
		return d.strip(data, nil, "", true)
	}
	return d.strip(data, d.oc.Operation.SelectionSet, root.Name, true)
}

// incremental is the data of an incremental payload, the fields of a deferred fragment of the
// object at path, without the fields deferred further inside it (a nested @defer): its own fields
// are the ones it delivers, so they stay. It returns the data decoded as well.
func (d deferredFields) incremental(data json.RawMessage, path ast.Path) (json.RawMessage, any, error) {
	root := d.rootType()
	if root == nil {
		return d.strip(data, nil, "", true)
	}
	sel, typ := d.oc.Operation.SelectionSet, root.Name
	for _, el := range path {
		name, ok := el.(ast.PathName)
		if !ok {
			continue // a list index: the same selections, on each element
		}
		fields := d.collect(sel, typ)[string(name)]
		if len(fields) == 0 || fields[0].Definition == nil {
			return d.strip(data, nil, "", true)
		}
		sel, typ = selectionsOf(fields), fields[0].Definition.Type.Name()
	}
	return d.strip(data, sel, typ, true)
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

// strip decodes data (keeping its keys' order), drops the deferred nulls, and encodes it again;
// it returns the decoded data too. No selections (sel nil) drop nothing.
func (d deferredFields) strip(data json.RawMessage, sel ast.SelectionSet, typ string, keepTop bool) (json.RawMessage, any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return data, nil, err
	}
	if sel == nil {
		return data, v, nil
	}
	d.value(v, sel, typ, keepTop)
	var out bytes.Buffer
	encodeOrdered(&out, v)
	return out.Bytes(), v, nil
}

// value walks v, the value of a field of type typ selecting sel (an object, a list of them, or a
// leaf), dropping deferred nulls. keepTop keeps the nulls of v's own fields.
func (d deferredFields) value(v any, sel ast.SelectionSet, typ string, keepTop bool) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			d.value(e, sel, typ, keepTop)
		}
	case *orderedObject:
		if len(sel) == 0 {
			return
		}
		fields := d.collect(sel, typ)
		kept := v.entries[:0]
		for _, e := range v.entries {
			fs := fields[e.key]
			if !keepTop && isNull(e.value) && allDeferred(fs) {
				continue
			}
			if len(fs) > 0 && fs[0].Definition != nil {
				d.value(e.value, selectionsOf(fs), fs[0].Definition.Type.Name(), false)
			}
			kept = append(kept, e)
		}
		v.entries = kept
	}
}

// collect is the fields sel selects on an object of type typ by response key: for an interface or
// a union, on each of its object types (the data does not say which one an object is).
func (d deferredFields) collect(sel ast.SelectionSet, typ string) map[string][]graphql.CollectedField {
	def := d.schema.Types[typ]
	if def == nil {
		return nil
	}
	types := []*ast.Definition{def}
	if def.IsAbstractType() {
		types = d.schema.GetPossibleTypes(def)
	}
	out := map[string][]graphql.CollectedField{}
	for _, t := range types {
		for _, f := range graphql.CollectFields(d.oc, sel, d.satisfies(t)) {
			out[f.Alias] = append(out[f.Alias], f)
		}
	}
	return out
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

// allDeferred says a response key is deferred on every type that selects it: only then is its
// null the executor's placeholder rather than a value.
func allDeferred(fs []graphql.CollectedField) bool {
	for _, f := range fs {
		if !f.IsDeferred() {
			return false
		}
	}
	return len(fs) > 0
}

// selectionsOf is the selections of a response key's fields, together.
func selectionsOf(fs []graphql.CollectedField) ast.SelectionSet {
	if len(fs) == 1 {
		return fs[0].Selections
	}
	var out ast.SelectionSet
	for _, f := range fs {
		out = append(out, f.Selections...)
	}
	return out
}

// orderedObject is a JSON object that keeps its keys' order: a response's fields come in the
// order of the operation's selections, and a client may rely on it.
type orderedObject struct{ entries []orderedEntry }

type orderedEntry struct {
	key   string
	value any // *orderedObject, []any, or json.RawMessage for a leaf (null included)
}

func isNull(v any) bool {
	raw, ok := v.(json.RawMessage)
	return ok && string(raw) == "null"
}

// decodeOrdered reads one JSON value from dec.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			list := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		return decodeObject(dec)
	case nil:
		return json.RawMessage("null"), nil
	case json.Number:
		return json.RawMessage(t), nil
	case string:
		return json.RawMessage(quoted(t)), nil
	default:
		b, err := json.Marshal(t)
		return json.RawMessage(b), err
	}
}

// decodeObject reads the rest of an object whose '{' dec already read.
func decodeObject(dec *json.Decoder) (*orderedObject, error) {
	obj := &orderedObject{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key %v is not a string", tok)
		}
		v, err := decodeOrdered(dec)
		if err != nil {
			return nil, err
		}
		obj.entries = append(obj.entries, orderedEntry{key: key, value: v})
	}
	_, err := dec.Token()
	return obj, err
}

// encodeOrdered writes v as JSON.
func encodeOrdered(buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case *orderedObject:
		buf.WriteByte('{')
		for i, e := range v.entries {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.Write(quoted(e.key))
			buf.WriteByte(':')
			encodeOrdered(buf, e.value)
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			encodeOrdered(buf, e)
		}
		buf.WriteByte(']')
	case json.RawMessage:
		buf.Write(v)
	}
}

// quoted is s as a JSON string, without escaping <, > and & (as gqlgen writes strings).
func quoted(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}
