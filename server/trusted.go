package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// Trusted documents: the operations a production frontend was built with, listed in a manifest
// the server loads at start (TRUSTED_DOCUMENTS). A client names one by its id instead of sending
// its text, and with TrustedEnforce the server runs nothing else (docs/security.md).

// TrustedDocumentsMode says what the server does with a document that is not in the manifest.
type TrustedDocumentsMode string

const (
	// TrustedOff runs any document; ids of the manifest (if one is loaded) still resolve.
	TrustedOff TrustedDocumentsMode = "off"
	// TrustedLog runs any document, and logs and counts each one that is not in the manifest: the
	// way to learn what clients send before enforcing.
	TrustedLog TrustedDocumentsMode = "log"
	// TrustedEnforce refuses any document not in the manifest before parsing it.
	TrustedEnforce TrustedDocumentsMode = "enforce"
)

// ParseTrustedDocumentsMode parses TRUSTED_DOCUMENTS_MODE.
func ParseTrustedDocumentsMode(s string) (TrustedDocumentsMode, error) {
	switch m := TrustedDocumentsMode(strings.ToLower(strings.TrimSpace(s))); m {
	case TrustedOff, TrustedLog, TrustedEnforce:
		return m, nil
	}
	return "", fmt.Errorf("trusted documents mode %q: want off, log or enforce", s)
}

// TrustedDocuments is a loaded manifest. Every document is found by the id the manifest gives
// it and by "sha256:" and the hex SHA-256 of its text (the GraphQL-over-HTTP documentId, and
// the hash automatic persisted queries send), whatever hash the tool that wrote the manifest
// used for its ids.
type TrustedDocuments struct {
	byID map[string]*trustedDocument
}

type trustedDocument struct {
	text string
	// operations are the document's operations by name ("" also names the only one).
	operations map[string]ast.Operation
}

// apolloManifest is Apollo's persisted-query manifest (@apollo/generate-persisted-query-manifest).
type apolloManifest struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	Operations []struct {
		ID   string `json:"id"`
		Body string `json:"body"`
	} `json:"operations"`
}

// LoadTrustedDocuments reads a manifest file (see ParseTrustedDocuments).
func LoadTrustedDocuments(path string) (*TrustedDocuments, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("trusted documents: %w", err)
	}
	docs, err := ParseTrustedDocuments(data)
	if err != nil {
		return nil, fmt.Errorf("trusted documents %s: %w", path, err)
	}
	return docs, nil
}

// ParseTrustedDocuments reads a manifest in either format: Apollo's persisted-query manifest
// ({"format": "apollo-persisted-query-manifest", "operations": [{"id", "body", …}]}) or Relay's
// persisted_queries.json (an object of id → text). Every document must parse.
func ParseTrustedDocuments(data []byte) (*TrustedDocuments, error) {
	ids := map[string]string{}
	var apollo apolloManifest
	if err := json.Unmarshal(data, &apollo); err == nil && apollo.Format == "apollo-persisted-query-manifest" {
		if apollo.Version != 1 {
			return nil, fmt.Errorf("apollo manifest version %d: only version 1 is known", apollo.Version)
		}
		for _, op := range apollo.Operations {
			ids[op.ID] = op.Body
		}
	} else if err := json.Unmarshal(data, &ids); err != nil {
		return nil, errors.New("neither an Apollo persisted-query manifest nor a Relay persisted_queries.json (an object of id → document)")
	}
	t := &TrustedDocuments{byID: map[string]*trustedDocument{}}
	for id, text := range ids {
		if id == "" {
			return nil, errors.New("a document has an empty id")
		}
		doc, err := newTrustedDocument(text)
		if err != nil {
			return nil, fmt.Errorf("document %q: %w", id, err)
		}
		t.byID[id] = doc
		t.byID[documentHash(text)] = doc
	}
	return t, nil
}

func newTrustedDocument(text string) (*trustedDocument, error) {
	parsed, err := parser.ParseQuery(&ast.Source{Input: text})
	if err != nil {
		return nil, err
	}
	if len(parsed.Operations) == 0 {
		return nil, errors.New("no operation")
	}
	doc := &trustedDocument{text: text, operations: map[string]ast.Operation{}}
	for _, op := range parsed.Operations {
		doc.operations[op.Name] = op.Operation
	}
	if len(parsed.Operations) == 1 {
		doc.operations[""] = parsed.Operations[0].Operation
	}
	return doc, nil
}

// documentHash is a document's id in the GraphQL-over-HTTP form: "sha256:" and its hex SHA-256.
func documentHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Len is the number of documents loaded.
func (t *TrustedDocuments) Len() int {
	if t == nil {
		return 0
	}
	seen := map[*trustedDocument]bool{}
	for _, d := range t.byID {
		seen[d] = true
	}
	return len(seen)
}

// lookup finds a document by a manifest id or "sha256:<hex>" (hex digits in either case).
func (t *TrustedDocuments) lookup(id string) *trustedDocument {
	if t == nil || id == "" {
		return nil
	}
	if d := t.byID[id]; d != nil {
		return d
	}
	if hexPart, ok := strings.CutPrefix(id, "sha256:"); ok {
		return t.byID["sha256:"+strings.ToLower(hexPart)]
	}
	return nil
}

// trusts reports whether text is, byte for byte, a document of the manifest.
func (t *TrustedDocuments) trusts(text string) bool {
	return t != nil && t.byID[documentHash(text)] != nil
}
