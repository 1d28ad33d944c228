package model

import (
	"strings"
	"testing"

	"singletable/repository/hr"
)

// The global ID of the largest location the API accepts (every part at its length limit, in
// 4-byte characters or in characters the ID escapes) still decodes, and back to the same parts.
func TestLargestLocationIDDecodes(t *testing.T) {
	for _, ch := range []string{"𝄞", ":", "%"} {
		ref := hr.LocationRef{
			Country: strings.Repeat(ch, 60), State: strings.Repeat(ch, 60), City: strings.Repeat(ch, 100),
			PostalCode: strings.Repeat(ch, 20), ID: "01J00000000000000000000001",
		}
		if _, err := hr.LocationKey(ref); err != nil {
			t.Fatalf("the repository refuses the reference: %v", err)
		}
		id := Locations.ID(&hr.Location{Country: ref.Country, State: ref.State, City: ref.City, PostalCode: ref.PostalCode, ID: ref.ID})
		parts, err := Locations.Decode("id", id)
		if err != nil {
			t.Fatalf("%q × limits: ID of %d characters: %v", ch, len(id), err)
		}
		if Locations.Ref(parts) != ref {
			t.Fatalf("round trip: %+v", Locations.Ref(parts))
		}
	}
}
