package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
)

const manifestQuery = `query Orgs { organizations { edges { node { name } } } }`

// Both manifest formats load; every document is found by its manifest id and by "sha256:" and
// its hash, and knows its operations' kinds.
func TestTrustedManifestFormats(t *testing.T) {
	hash := documentHash(manifestQuery)
	apollo := `{"format":"apollo-persisted-query-manifest","version":1,"operations":[` +
		`{"id":"` + strings.TrimPrefix(hash, "sha256:") + `","name":"Orgs","type":"query","body":` + quote(manifestQuery) + `},` +
		`{"id":"m1","name":"Rename","type":"mutation","body":"mutation Rename { createOrganization(input: {name: \"x\"}) { id } }"}]}`
	relay := `{"1f2e":` + quote(manifestQuery) + `,"m1":"mutation Rename { createOrganization(input: {name: \"x\"}) { id } }"}`
	for name, raw := range map[string]string{"apollo": apollo, "relay": relay} {
		docs, err := ParseTrustedDocuments([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if docs.Len() != 2 {
			t.Errorf("%s: %d documents, want 2", name, docs.Len())
		}
		if d := docs.lookup(hash); d == nil || d.text != manifestQuery {
			t.Errorf("%s: not found by its hash", name)
		}
		if op, ok := docs.lookup("m1").operation(""); !ok || op != ast.Mutation {
			t.Errorf("%s: m1 is %q %v", name, op, ok)
		}
		if !docs.trusts(manifestQuery) || docs.trusts(manifestQuery+" ") {
			t.Errorf("%s: trusts the wrong texts", name)
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// A manifest that is not one, or holds a document that does not parse, is refused whole.
func TestTrustedManifestErrors(t *testing.T) {
	for name, raw := range map[string]string{
		"not JSON":        `{`,
		"a list":          `["query { a }"]`,
		"unknown version": `{"format":"apollo-persisted-query-manifest","version":2,"operations":[]}`,
		"bad document":    `{"a":"query {"}`,
		"no operation":    `{"a":"fragment F on Query { a }"}`,
		"empty id":        `{"":"query { a }"}`,
	} {
		if _, err := ParseTrustedDocuments([]byte(raw)); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

// Whatever the bytes, loading a manifest never panics, and every document it accepts is found
// by its hash.
func FuzzParseTrustedDocuments(f *testing.F) {
	f.Add([]byte(`{"a":"query { a }"}`))
	f.Add([]byte(`{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":"x","body":"{ a }"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := ParseTrustedDocuments(data)
		if err != nil {
			return
		}
		for _, d := range docs.byID {
			if docs.lookup(documentHash(d.text)) != d && docs.lookup(documentHash(d.text)).text != d.text {
				t.Fatalf("%q not found by its hash", d.text)
			}
		}
	})
}
