package repository

import (
	"strings"
	"testing"
)

func TestEscapeRoundTrip(t *testing.T) {
	for _, in := range []string{"", "plain", "a#b", "%", "%23", "#%#", "100%#sure", "ünïcødé#"} {
		e := Escape(in)
		if strings.Contains(e, Delim) {
			t.Errorf("esc(%q) = %q contains the delimiter", in, e)
		}
		back, ok := unesc(e)
		if !ok || back != in {
			t.Errorf("unesc(esc(%q)) = %q, %v", in, back, ok)
		}
	}
}

func TestUnescRejectsWhatEscCannotProduce(t *testing.T) {
	for _, in := range []string{"a#b", "%", "%2", "%24", "%zz", "x%"} {
		if _, ok := unesc(in); ok {
			t.Errorf("unesc(%q) accepted a string esc cannot produce", in)
		}
	}
}

// A value containing the delimiter must not be able to forge another key: an email "x#y" in
// organization A must not produce the key of any other organization's guard.
func TestEmailGuardKeysCannotCollide(t *testing.T) {
	org1, org2 := "01J00000000000000000000001", "01J00000000000000000000002"
	a := emailGuardKey(org1, org2+"#bob@x.io")
	b := emailGuardKey(org1+"#"+org2, "bob@x.io")
	if a == b {
		t.Fatalf("keys collide: %v", a)
	}
	if emailGuardKey(org1, "Bob@X.io") != emailGuardKey(org1, " bob@x.io ") {
		t.Fatal("email uniqueness must ignore case and surrounding space")
	}
}

func TestUserItemSortsLastInItsGSI1Collection(t *testing.T) {
	user := "01J00000000000000000000001"
	ticket := "7ZZZZZZZZZZZZZZZZZZZZZZZZZ" // the largest possible id
	if !(ticketGSI1SK(ticket) < userGSI1SK(user)) {
		t.Fatalf("ticket sort key %q must sort before the user's %q", ticketGSI1SK(ticket), userGSI1SK(user))
	}
	if !(OrgKey(user).SK < UserKeyOf(user, user).SK) {
		t.Fatal("the organization item must sort before its users")
	}
}

// FuzzEscape: esc never yields the delimiter, is reversible, and is injective, so distinct user
// values give distinct key segments.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "a", "#", "%", "%23", "a#b%c", "\x00\xff"} {
		f.Add(s, s+"#")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ea, eb := Escape(a), Escape(b)
		if strings.Contains(ea, Delim) {
			t.Fatalf("esc(%q) = %q contains the delimiter", a, ea)
		}
		if back, ok := unesc(ea); !ok || back != a {
			t.Fatalf("unesc(esc(%q)) = %q, %v", a, back, ok)
		}
		if a != b && ea == eb {
			t.Fatalf("esc(%q) == esc(%q) == %q", a, b, ea)
		}
		// begins_with safety: a prefix query for value a (which always ends with the delimiter)
		// matches a key built from value b only if a == b.
		if a != b && strings.HasPrefix(Join("P", eb, "rest"), Join("P", ea)+Delim) {
			t.Fatalf("prefix for %q matches the key of %q", a, b)
		}
	})
}

// FuzzEmailGuardKey: two emails share a guard item exactly when they are equal ignoring case and
// surrounding space, whatever characters they contain.
func FuzzEmailGuardKey(f *testing.F) {
	f.Add("a@b.io", "A@B.io")
	f.Add("a#b@c.io", "a%23b@c.io")
	f.Add("x", "x#")
	f.Fuzz(func(t *testing.T, a, b string) {
		org := "01J00000000000000000000001"
		fa, fb := strings.ToLower(strings.TrimSpace(a)), strings.ToLower(strings.TrimSpace(b))
		same := fa == fb
		if (emailGuardKey(org, a) == emailGuardKey(org, b)) != same {
			t.Fatalf("emailGuardKey(%q) vs (%q): equal keys = %v, equal emails = %v", a, b, !same, same)
		}
	})
}

// unesc reverses esc. ok is false for a string esc cannot have produced.
func unesc(s string) (string, bool) {
	if !strings.ContainsAny(s, "%#") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '#':
			return "", false
		case '%':
			if i+3 > len(s) {
				return "", false
			}
			switch s[i+1 : i+3] {
			case "25":
				b.WriteByte('%')
			case "23":
				b.WriteByte('#')
			default:
				return "", false
			}
			i += 2
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), true
}
