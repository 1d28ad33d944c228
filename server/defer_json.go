package server

import (
	"bytes"
	"encoding/json"
	"fmt"
)

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
