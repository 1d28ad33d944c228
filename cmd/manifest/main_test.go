package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"singletable/server"
)

// The documented example operations make a manifest the server loads, with one document per
// file, each id the SHA-256 of its file's text.
func TestManifestOfTheExamples(t *testing.T) {
	var out bytes.Buffer
	if err := run("../../docs/examples", &out); err != nil {
		t.Fatal(err)
	}
	docs, err := server.ParseTrustedDocuments(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../../docs/examples/*.graphql")
	if docs.Len() != len(files) || len(files) == 0 {
		t.Fatalf("%d documents from %d files", docs.Len(), len(files))
	}
	var m manifest
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, op := range m.Operations {
		if op.Name == "" || (op.Type != "query" && op.Type != "mutation" && op.Type != "subscription") || len(op.ID) != 64 {
			t.Errorf("entry %+v", op)
		}
	}
}

// A folder with a file that does not parse, or holds two operations, or no file at all, makes
// no manifest.
func TestManifestRefusesBadFolders(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"empty":          {},
		"broken":         {"a.graphql": "query {"},
		"two operations": {"a.graphql": "query A { a } query B { b }"},
	} {
		dir := t.TempDir()
		for f, text := range files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		var out bytes.Buffer
		if err := run(dir, &out); err == nil || out.Len() != 0 {
			t.Errorf("%s: err %v, wrote %q", name, err, strings.TrimSpace(out.String()))
		}
	}
}
