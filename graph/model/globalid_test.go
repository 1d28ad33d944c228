package model

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"singletable/apperr"
)

func TestGlobalIDRoundTrip(t *testing.T) {
	id := EncodeID(TypeUser, "01J00000000000000000000001", "01J00000000000000000000002")
	typ, parts, err := DecodeID("id", id)
	if err != nil || typ != TypeUser || !slices.Equal(parts, []string{"01J00000000000000000000001", "01J00000000000000000000002"}) {
		t.Fatalf("DecodeID = %q %q %v", typ, parts, err)
	}
	if strings.Contains(id, "User") || strings.Contains(id, "#") {
		t.Fatalf("global id %q is not opaque", id)
	}
}

func TestGlobalIDPartsMayHoldSeparators(t *testing.T) {
	parts := []string{"a:b", "100%", "%3A", ":"}
	idParts["Test"] = len(parts)
	defer delete(idParts, "Test")
	typ, got, err := DecodeID("id", EncodeID("Test", parts...))
	if err != nil || typ != "Test" || !slices.Equal(got, parts) {
		t.Fatalf("DecodeID = %q %q %v", typ, got, err)
	}
}

func TestDecodeIDRejectsMalformedIDs(t *testing.T) {
	for _, bad := range []string{
		"", "not base64!", EncodeID("Nope", "x"), EncodeID(TypeUser, "only-one"),
		EncodeID(TypeOrganization, "a", "b"), EncodeID(TypeTicket, ""), strings.Repeat("A", 300),
		raw("Ticket:a%3ab"), raw("Ticket:a%b"), raw("Ticket:%41"),
	} {
		_, _, err := DecodeID("id", bad)
		if apperr.CodeOf(err) != apperr.CodeBadUserInput {
			t.Errorf("DecodeID(%q) err = %v, want BAD_USER_INPUT", bad, err)
		}
	}
	if _, err := DecodeIDOf("organizationId", EncodeID(TypeTicket, "x"), TypeOrganization); apperr.CodeOf(err) != apperr.CodeBadUserInput {
		t.Errorf("a ticket id where an organization id is due: err = %v", err)
	}
}

func raw(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// FuzzDecodeID: no input makes DecodeID panic, and every accepted ID re-encodes to itself.
func FuzzDecodeID(f *testing.F) {
	f.Add(EncodeID(TypeOrganization, "01J00000000000000000000001"))
	f.Add(EncodeID(TypeUser, "a", "b"))
	f.Add("")
	f.Add(raw("Ticket:a%3Ab"))
	f.Fuzz(func(t *testing.T, id string) {
		typ, parts, err := DecodeID("id", id)
		if err != nil {
			return
		}
		if again := EncodeID(typ, parts...); again != id {
			t.Fatalf("DecodeID accepted %q, which encodes as %q", id, again)
		}
	})
}
