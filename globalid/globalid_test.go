package globalid

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"singletable/apperr"
)

func TestRoundTrip(t *testing.T) {
	id := Encode("User", "01J00000000000000000000001", "01J00000000000000000000002")
	typ, parts, err := Decode("id", id)
	if err != nil || typ != "User" || !slices.Equal(parts, []string{"01J00000000000000000000001", "01J00000000000000000000002"}) {
		t.Fatalf("Decode = %q %q %v", typ, parts, err)
	}
	if strings.Contains(id, "User") || strings.Contains(id, "#") {
		t.Fatalf("global id %q is not opaque", id)
	}
}

func TestPartsMayHoldSeparators(t *testing.T) {
	parts := []string{"a:b", "100%", "%3A", ":"}
	typ, got, err := Decode("id", Encode("Test", parts...))
	if err != nil || typ != "Test" || !slices.Equal(got, parts) {
		t.Fatalf("Decode = %q %q %v", typ, got, err)
	}
}

func TestDecodeRejectsMalformedIDs(t *testing.T) {
	for _, bad := range []string{
		"", "not base64!", raw("Ticket"), raw(":x"), Encode("Ticket", ""), strings.Repeat("A", 3000),
		raw("Ticket:a%3ab"), raw("Ticket:a%b"), raw("Ticket:%41"),
		// the decoder skips newlines: an ID with one is not in its one spelling
		Encode("Ticket", "x")[:4] + "\n" + Encode("Ticket", "x")[4:], Encode("Ticket", "x") + "\r\n",
	} {
		if _, _, err := Decode("id", bad); apperr.CodeOf(err) != apperr.CodeBadUserInput {
			t.Errorf("Decode(%q) err = %v, want BAD_USER_INPUT", bad, err)
		}
	}
	if _, err := DecodeOf("org", Encode("Ticket", "x"), "Organization", 1); apperr.CodeOf(err) != apperr.CodeBadUserInput {
		t.Errorf("a ticket id where an organization id is due: err = %v", err)
	}
	if _, err := DecodeOf("org", Encode("Organization", "x", "y"), "Organization", 1); apperr.CodeOf(err) != apperr.CodeBadUserInput {
		t.Errorf("an organization id with two parts: err = %v", err)
	}
	if parts, err := DecodeOf("org", Encode("Organization", "x"), "Organization", 1); err != nil || !slices.Equal(parts, []string{"x"}) {
		t.Errorf("DecodeOf = %v, %v", parts, err)
	}
}

// A lookup by ID decodes it on every request: the decoded ID, its parts and their list are all it
// allocates when no part holds an escape.
func TestDecodeAllocations(t *testing.T) {
	id := Encode("User", "01J00000000000000000000001", "01J00000000000000000000002")
	if n := testing.AllocsPerRun(100, func() { _, _, _ = Decode("id", id) }); n > 3 {
		t.Errorf("Decode allocates %v times, want at most 3", n)
	}
}

func raw(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// FuzzDecode: no input makes Decode panic, and every accepted ID re-encodes to itself.
func FuzzDecode(f *testing.F) {
	f.Add(Encode("Organization", "01J00000000000000000000001"))
	f.Add(Encode("User", "a", "b"))
	f.Add("")
	f.Add(raw("Ticket:a%3Ab"))
	f.Fuzz(func(t *testing.T, id string) {
		typ, parts, err := Decode("id", id)
		if err != nil {
			return
		}
		if again := Encode(typ, parts...); again != id {
			t.Fatalf("Decode accepted %q, which encodes as %q", id, again)
		}
	})
}
