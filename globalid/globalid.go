// Package globalid is the codec of the API's global IDs (Relay Object Identification): opaque to
// clients, they encode an object's type and the parts of its key, so that `node(id:)` can look any
// object up without a second index:
//
//	base64url("Organization:<org>"), base64url("User:<org>:<user>"), base64url("Ticket:<org>:<ticket>")
//
// Key parts may be user-supplied text (a location's country or city): ':' and '%' inside a part
// are percent-escaped, so parts never run into each other. IDs are not secret and not signed: an
// ID names an object, it does not grant access to it.
//
// The package is a leaf (it imports apperr alone), so that auth can decode the global IDs in a
// token's claims without importing the GraphQL model. Which types exist and how many parts each
// carries is the node descriptors' business (graph/model); this package only spells IDs.
package globalid

import (
	"encoding/base64"
	"strings"

	"singletable/apperr"
)

// maxLen bounds the work spent on a client-supplied ID. A location's ID carries up to 240
// characters of user text (up to 4 bytes each in UTF-8), so the bound is that of a cursor.
const maxLen = 2048

var (
	escaper   = strings.NewReplacer("%", "%25", ":", "%3A")
	unescaper = strings.NewReplacer("%25", "%", "%3A", ":")
)

// Encode returns the global ID of an object of type typ whose key parts are parts.
func Encode(typ string, parts ...string) string {
	var b strings.Builder
	b.WriteString(typ)
	for _, p := range parts {
		b.WriteByte(':')
		escaper.WriteString(&b, p)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(b.String()))
}

// Decode splits a global ID into its type and key parts: at least one part, none empty, in the
// one spelling Encode produces. Whether the type exists and has that many parts is the caller's
// check. A malformed ID is BAD_USER_INPUT on the given field.
func Decode(field, id string) (typ string, parts []string, err error) {
	if len(id) == 0 || len(id) > maxLen {
		return "", nil, Invalid(field)
	}
	raw, derr := base64.RawURLEncoding.Strict().DecodeString(id)
	// The decoder skips newlines: insist on the one canonical spelling of each ID, which (strict
	// about the last character's unused bits) is the one exactly as long as the encoding of raw.
	if derr != nil || base64.RawURLEncoding.EncodedLen(len(raw)) != len(id) {
		return "", nil, Invalid(field)
	}
	fields := strings.Split(string(raw), ":")
	if len(fields) < 2 || fields[0] == "" {
		return "", nil, Invalid(field)
	}
	parts = fields[1:]
	for i, p := range parts {
		if p == "" {
			return "", nil, Invalid(field)
		}
		if !strings.Contains(p, "%") {
			continue // nothing escaped, and no ':' after the split: Encode's spelling as is
		}
		parts[i] = unescaper.Replace(p)
		// Only the spelling Encode produces is accepted ("%3a", "%41" and stray '%' are not).
		if escaper.Replace(parts[i]) != p {
			return "", nil, Invalid(field)
		}
	}
	return fields[0], parts, nil
}

// DecodeOf decodes a global ID that must be of type want with n parts: anything else is
// BAD_USER_INPUT on field, saying which type was expected.
func DecodeOf(field, id, want string, n int) ([]string, error) {
	typ, parts, err := Decode(field, id)
	if err != nil {
		return nil, err
	}
	if typ != want {
		return nil, WrongType(field, want)
	}
	if len(parts) != n {
		return nil, Invalid(field)
	}
	return parts, nil
}

// Invalid is the error of a malformed ID given in field.
func Invalid(field string) error {
	return apperr.InvalidInput(field, "%s is not a valid ID", field)
}

// WrongType is the error of a well-formed ID of another type than want, given in field.
func WrongType(field, want string) error {
	return apperr.InvalidInput(field, "%s must be the ID of a %s", field, want)
}
