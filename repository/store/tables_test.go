package store_test

import (
	"os"
	"strings"
	"testing"

	"singletable/repository"
)

// The generated tables of docs/data-model.md are checked here, where every domain's package is
// linked in: each declares its item types and access patterns with the engine when it starts.

const (
	patternsBegin = "<!-- patterns:begin -->"
	patternsEnd   = "<!-- patterns:end -->"
)

// TestPatternTableIsCurrent keeps the access-pattern table of docs/data-model.md equal to the
// declarations. UPDATE_GOLDEN=1 rewrites the table between the markers.
func TestPatternTableIsCurrent(t *testing.T) {
	checkGoldenSection(t, patternsBegin, patternsEnd, repository.PatternTable(), "TestPatternTableIsCurrent")
}

// keyTableDoc is the page whose key table is generated from the entity definitions.
const keyTableDoc = "../../docs/data-model.md"

const (
	keysBegin = "<!-- keys:begin -->"
	keysEnd   = "<!-- keys:end -->"
)

// TestKeyTableIsCurrent keeps the key table of docs/data-model.md equal to what the definitions
// say. UPDATE_GOLDEN=1 rewrites the table between the markers.
func TestKeyTableIsCurrent(t *testing.T) {
	checkGoldenSection(t, keysBegin, keysEnd, repository.KeyTable(), "TestKeyTableIsCurrent")
}

// checkGoldenSection compares the part of docs/data-model.md between the markers begin and end
// with want; UPDATE_GOLDEN=1 rewrites it (test names the test that does).
func checkGoldenSection(t *testing.T, begin, end, want, test string) {
	t.Helper()
	doc, err := os.ReadFile(keyTableDoc)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(doc), begin)
	current, after, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("%s lacks the markers %s … %s", keyTableDoc, begin, end)
	}
	want = "\n" + want
	if current == want {
		return
	}
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(keyTableDoc, []byte(before+begin+want+end+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("a generated table in %s is stale; run UPDATE_GOLDEN=1 go test ./repository/store -run %s\n--- have\n%s--- want\n%s", keyTableDoc, test, current, want)
}
