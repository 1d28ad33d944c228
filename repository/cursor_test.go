package repository

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"singletable/apperr"
)

var testCodec = newCursorCodec([]byte("0123456789abcdef0123456789abcdef"))

func TestCursorRoundTrip(t *testing.T) {
	vals := []string{"ORG#01J", "USER#01K", "", "ü#%"}
	c := testCodec.encode("scope-a", vals)
	got, err := testCodec.Decode("scope-a", c, len(vals))
	if err != nil || !slices.Equal(got, vals) {
		t.Fatalf("decode = %q, %v; want %q", got, err, vals)
	}
	if c != testCodec.encode("scope-a", vals) {
		t.Fatal("cursors of one position must be stable")
	}
}

func TestCursorIsOpaque(t *testing.T) {
	c := testCodec.encode("s", []string{"ORG#01J000", "USER#01K000"})
	raw, _ := base64.RawURLEncoding.DecodeString(c)
	if strings.Contains(string(raw), "ORG#") || strings.Contains(string(raw), "USER#") {
		t.Fatalf("cursor bytes reveal the key: %q", raw)
	}
}

func TestCursorRejectsTamperingAndForeignScopes(t *testing.T) {
	vals := []string{"ORG#1", "USER#2"}
	c := testCodec.encode("users|ORG#1", vals)
	if _, err := testCodec.Decode("tickets|ORG#1", c, 2); apperr.CodeOf(err) != apperr.CodeBadUserInput {
		t.Fatalf("foreign scope: err = %v, want BAD_USER_INPUT", err)
	}
	other := newCursorCodec([]byte("another secret, another server!!"))
	if _, err := other.Decode("users|ORG#1", c, 2); apperr.CodeOf(err) != apperr.CodeBadUserInput {
		t.Fatalf("other secret: err = %v", err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(c)
	for i := range raw {
		for _, bit := range []byte{1, 0x80} {
			forged := slices.Clone(raw)
			forged[i] ^= bit
			if _, err := testCodec.Decode("users|ORG#1", base64.RawURLEncoding.EncodeToString(forged), 2); err == nil {
				t.Fatalf("flipping bit %x of byte %d went unnoticed", bit, i)
			}
		}
	}
	for _, bad := range []string{"", "!!!", "AAAA", strings.Repeat("A", maxCursorLen+1), c[:len(c)-2]} {
		if _, err := testCodec.Decode("users|ORG#1", bad, 2); apperr.CodeOf(err) != apperr.CodeBadUserInput {
			t.Fatalf("decode(%q) err = %v", bad, err)
		}
	}
	if _, err := testCodec.Decode("users|ORG#1", c, 3); err == nil {
		t.Fatal("a cursor with the wrong number of attributes must be refused")
	}
}

// FuzzCursorDecode: decoding arbitrary input never panics, and whatever it accepts re-encodes to
// the same cursor (so only cursors this server made are accepted).
func FuzzCursorDecode(f *testing.F) {
	f.Add(testCodec.encode("s", []string{"a", "b"}))
	f.Add("")
	f.Add("AQ")
	f.Fuzz(func(t *testing.T, cursor string) {
		vals, err := testCodec.Decode("s", cursor, 2)
		if err != nil {
			if apperr.CodeOf(err) != apperr.CodeBadUserInput {
				t.Fatalf("error code %s", apperr.CodeOf(err))
			}
			return
		}
		if again := testCodec.encode("s", vals); again != cursor {
			t.Fatalf("accepted %q, which is not the cursor of %q (%q)", cursor, vals, again)
		}
	})
}

func FuzzCursorRoundTrip(f *testing.F) {
	f.Add("PK", "SK", "scope")
	f.Fuzz(func(t *testing.T, a, b, scope string) {
		c := testCodec.encode(scope, []string{a, b})
		got, err := testCodec.Decode(scope, c, 2)
		if len(c) <= maxCursorLen && (err != nil || got[0] != a || got[1] != b) {
			t.Fatalf("round trip of %q %q: %q %v", a, b, got, err)
		}
	})
}
