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
