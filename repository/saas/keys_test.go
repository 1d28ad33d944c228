package saas

import (
	"strings"
	"testing"
)

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
