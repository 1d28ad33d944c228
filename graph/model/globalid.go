// Package model holds the Go types the GraphQL schema binds to: hand-written wrappers of the
// repository's entities (they add the global ID and what a resolver read ahead) and the types
// gqlgen generates (models_gen.go).
package model

import (
	"encoding/base64"
	"strings"

	"singletable/apperr"
)

// Global IDs (Relay Object Identification) are opaque to clients but encode the object's type
// and the parts of its key, so that `node(id:)` can look any object up without a second index:
//
//	base64url("Organization:<org>"), base64url("User:<org>:<user>"), base64url("Ticket:<ticket>")
//
// Key parts may be user-supplied text (a location's country or city): ':' and '%' inside a part are
// percent-escaped, so parts never run into each other. They are not secret and not signed: an ID
// names an object, it does not grant access to it.

// Node type names, as in the schema.
const (
	TypeOrganization = "Organization"
	TypeUser         = "User"
	TypeTicket       = "Ticket"
	TypeCustomer     = "Customer"
	TypeOrder        = "Order"
	TypeDepartment   = "Department"
	TypeEmployee     = "Employee"
	TypeLocation     = "Location"
)

// idParts is how many key parts a global ID of each type carries.
var idParts = map[string]int{
	TypeOrganization: 1,
	TypeUser:         2,
	TypeTicket:       1,
	TypeCustomer:     1,
	TypeOrder:        2,
	TypeDepartment:   1,
	TypeEmployee:     1,
	// country, state, city, postal code, id: the whole key of a location (AP14).
	TypeLocation: 5,
}

// maxGlobalIDLen bounds the work spent on a client-supplied ID. A location's ID carries up to 240
// characters of user text (up to 4 bytes each in UTF-8), so the bound is that of a cursor.
const maxGlobalIDLen = 2048

// EncodeID returns the global ID of an object of type typ whose key parts are parts.
func EncodeID(typ string, parts ...string) string {
	var b strings.Builder
	b.WriteString(typ)
	for _, p := range parts {
		b.WriteByte(':')
		idEscaper.WriteString(&b, p)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(b.String()))
}

var (
	idEscaper   = strings.NewReplacer("%", "%25", ":", "%3A")
	idUnescaper = strings.NewReplacer("%25", "%", "%3A", ":")
)

// DecodeID splits a global ID into its type and key parts. The parts are checked only for their
// number; the repository validates their form when it builds keys. A malformed ID is
// BAD_USER_INPUT on the given field.
func DecodeID(field, id string) (typ string, parts []string, err error) {
	// Built only when needed: every ID of every request passes here.
	bad := func() error { return apperr.InvalidInput(field, "%s is not a valid ID", field) }
	if len(id) == 0 || len(id) > maxGlobalIDLen {
		return "", nil, bad()
	}
	raw, derr := base64.RawURLEncoding.Strict().DecodeString(id)
	// The decoder skips newlines: insist on the one canonical spelling of each ID.
	if derr != nil || base64.RawURLEncoding.EncodeToString(raw) != id {
		return "", nil, bad()
	}
	fields := strings.Split(string(raw), ":")
	n, ok := idParts[fields[0]]
	if !ok || len(fields) != n+1 {
		return "", nil, bad()
	}
	parts = make([]string, n)
	for i, p := range fields[1:] {
		parts[i] = idUnescaper.Replace(p)
		// Only the spelling EncodeID produces is accepted ("%3a", "%41" and stray '%' are not).
		if p == "" || idEscaper.Replace(parts[i]) != p {
			return "", nil, bad()
		}
	}
	return fields[0], parts, nil
}

// DecodeIDOf decodes a global ID that must be of type want.
func DecodeIDOf(field, id, want string) ([]string, error) {
	typ, parts, err := DecodeID(field, id)
	if err != nil {
		return nil, err
	}
	if typ != want {
		return nil, apperr.InvalidInput(field, "%s must be the ID of a %s", field, want)
	}
	return parts, nil
}
