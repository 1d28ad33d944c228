package hr

import (
	"strings"
	"testing"
	"time"

	"singletable/repository"
)

func fold(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// FuzzLocationPrefix: a begins_with prefix for a state (or a state and city, or a state, city and
// postal code) matches a location's sort key exactly when the location's state (city, postal code)
// equals it without regard to case and surrounding space, whatever characters either contains.
// So no value can make AP14 return another state's or city's locations.
func FuzzLocationPrefix(f *testing.F) {
	f.Add("CA", "San Jose", "95113", "CA", "San Jose Heights", "95113")
	f.Add("CA", "San Jose", "9", "ca", " san jose", "95113")
	f.Add("Cali#fornia", "x", "y", "Cali", "fornia#x", "y")
	f.Add("a%23b", "c", "d", "a#b", "c", "d")
	f.Add("a", "b#c", "d", "a", "b", "c#d")
	f.Fuzz(func(t *testing.T, qState, qCity, qPostal, state, city, postal string) {
		sk := locationSK(state, city, postal, "01J00000000000000000000001")
		levels := []struct {
			prefix string
			same   bool
		}{
			{locationPrefix(qState), fold(qState) == fold(state)},
			{locationPrefix(qState, qCity), fold(qState) == fold(state) && fold(qCity) == fold(city)},
			{locationPrefix(qState, qCity, qPostal), fold(qState) == fold(state) && fold(qCity) == fold(city) && fold(qPostal) == fold(postal)},
		}
		for i, l := range levels {
			if got := strings.HasPrefix(sk, l.prefix); got != l.same {
				t.Fatalf("level %d: prefix %q vs key %q: match %v, want %v", i+1, l.prefix, sk, got, l.same)
			}
		}
		// And countries are whole partitions: equal exactly when the folded names are.
		if (countryPK(qState) == countryPK(state)) != (fold(qState) == fold(state)) {
			t.Fatalf("countryPK(%q) vs countryPK(%q)", qState, state)
		}
	})
}

func TestLocationPrefixEndsWithTheDelimiter(t *testing.T) {
	sj := locationSK("California", "San Jose", "95113", "01J00000000000000000000001")
	sjh := locationSK("California", "San Jose Heights", "95120", "01J00000000000000000000002")
	p := locationPrefix("california", "SAN JOSE")
	if !strings.HasPrefix(sj, p) || strings.HasPrefix(sjh, p) {
		t.Fatalf("prefix %q: San Jose %q, San Jose Heights %q", p, sj, sjh)
	}
	if locationPrefix() != "" {
		t.Fatal("no segments, no prefix")
	}
}

// Relation keys: one per (employee, type), under the employee; the inverted partitions of the
// three types never meet, and no relation sort key can be the employee's root item.
func TestRelationKeys(t *testing.T) {
	e, m := "01J00000000000000000000001", "01J00000000000000000000002"
	seen := map[string]RelationType{}
	for _, rel := range []RelationType{RelDepartment, RelManager, RelMentor} {
		k := relationKey(e, rel)
		if k.PK != EmpKey(e).PK || k == EmpKey(e) || !strings.HasPrefix(k.SK, relSKPrefix) {
			t.Errorf("%s: key %v", rel, k)
		}
		pk := relationGSI1PK(rel, m)
		if other, dup := seen[pk]; dup {
			t.Errorf("%s and %s share the inverted partition %q", rel, other, pk)
		}
		seen[pk] = rel
	}
	if got := relationGSI1PK(RelDepartment, m); got != "DEPT#"+m+"#REL#DEPARTMENT" {
		t.Errorf("department partition %q", got)
	}
	if got := relationGSI1PK(RelManager, m); got != "EMP#"+m+"#REL#MANAGER" {
		t.Errorf("manager partition %q", got)
	}
}

// Hire sort keys sort in time order whatever the fraction of a second, and a bound at an instant
// sorts before every key of that instant (AP13's GSI2SK >= since includes it).
func TestHireSortKeyOrder(t *testing.T) {
	base := time.Date(2024, 5, 1, 12, 0, 5, 0, time.UTC)
	times := []time.Time{
		time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC),
		base.Add(-time.Nanosecond),
		base,
		base.Add(time.Nanosecond),
		base.Add(500 * time.Millisecond),
		base.Add(time.Second),
		base.In(time.FixedZone("x", -10*3600)).Add(2 * time.Second), // same instant rules in any zone
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	}
	id := "01J00000000000000000000001"
	for i := 1; i < len(times); i++ {
		a, b := HireSortKey(times[i-1], id), HireSortKey(times[i], id)
		if !(a < b) || len(a) != len(b) {
			t.Errorf("%v → %q must sort before %v → %q", times[i-1], a, times[i], b)
		}
	}
	if !(hireTime(base) < HireSortKey(base, id)) {
		t.Error("the bound must sort before the keys of its own instant")
	}
}

// The largest location the API accepts still has a key DynamoDB takes (sort key ≤ 1024 bytes,
// partition key ≤ 2048 bytes).
func TestLargestLocationKeyFits(t *testing.T) {
	worst := func(n int) string { return strings.Repeat("%", n) } // '%' escapes to 3 bytes
	wide := func(n int) string { return strings.Repeat("𝄞", n) }  // 4 bytes in UTF-8
	for _, s := range []func(int) string{worst, wide} {
		ref := LocationRef{Country: s(repository.MaxCountryLen), State: s(repository.MaxStateLen), City: s(repository.MaxCityLen), PostalCode: s(repository.MaxPostalCodeLen), ID: "01J00000000000000000000001"}
		k, err := LocationKey(ref)
		if err != nil {
			t.Fatal(err)
		}
		if len(k.SK) > 1024 || len(k.PK) > 2048 {
			t.Errorf("key too long: PK %d bytes, SK %d bytes", len(k.PK), len(k.SK))
		}
	}
}
