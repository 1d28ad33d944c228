package schemafiles

import "testing"

// The schema files load into a schema with the API's root types; a folder without them is an error.
func TestLoad(t *testing.T) {
	s, err := Load("..")
	if err != nil {
		t.Fatal(err)
	}
	if s.Query == nil || s.Mutation == nil || s.Subscription == nil {
		t.Fatalf("root types missing: query %v, mutation %v, subscription %v", s.Query, s.Mutation, s.Subscription)
	}
	if _, err := Load("."); err == nil {
		t.Fatal("a folder without schema files loaded")
	}
}
