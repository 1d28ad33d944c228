package auth

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// errRepeatedName is the refusal of a token whose header or claims repeat a member name.
var errRepeatedName = errors.New("a JSON object repeats a member name")

// checkSegmentNames refuses a compact token whose header or payload JSON repeats a member name in
// any object, at any depth. RFC 7515 §4 and RFC 7519 §4 let a parser either refuse such a token
// or keep the last value; jwx keeps the last, a gateway or another service in front of us may
// keep the first, and two readers of one signed token must never see two different callers
// (`sub`), roles or tenants. The library parses with its own JSON decoder, so the raw segments are
// read here with encoding/json's token stream, which unescapes names before they are compared
// ("s\u0075b" and "sub" are one name). Names are compared exactly: JSON names are
// case-sensitive, and so are claim names.
func checkSegmentNames(token string) error {
	header, payload, _ := strings.Cut(token, ".")
	payload, _, _ = strings.Cut(payload, ".")
	for _, seg := range []string{header, payload} {
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(seg, "="))
		if err != nil {
			return err
		}
		if err := repeatedMemberName(raw); err != nil {
			return err
		}
	}
	return nil
}

// jsonFrame is one open object or array while repeatedMemberName walks a document.
type jsonFrame struct {
	names   map[string]struct{} // nil for an array
	wantKey bool                // in an object: the next token is a member name or '}'
}

// repeatedMemberName returns errRepeatedName if an object of the JSON document doc has two
// members of the same name, another error if doc is not one JSON value, and nil otherwise. It
// walks the token stream with an explicit stack, so nesting costs no Go stack.
func repeatedMemberName(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var stack []jsonFrame
	values := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			top := &stack[n-1]
			if name, ok := tok.(string); ok {
				if _, seen := top.names[name]; seen {
					return errRepeatedName
				}
				top.names[name] = struct{}{}
				top.wantKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, jsonFrame{names: map[string]struct{}{}, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, jsonFrame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended (a scalar, or the container just closed): its object wants a name next.
		if n := len(stack); n > 0 && stack[n-1].names != nil {
			stack[n-1].wantKey = true
		} else if n == 0 {
			values++
		}
	}
	if values != 1 || len(stack) > 0 {
		return errors.New("not one JSON value")
	}
	return nil
}
