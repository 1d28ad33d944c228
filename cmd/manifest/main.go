// Command manifest builds a trusted-documents manifest (TRUSTED_DOCUMENTS) from a folder of
// operations, one operation per .graphql file (fragments it spreads may sit in the same file),
// in Apollo's persisted-query manifest format: each document's id is the hex SHA-256 of its
// text, so a client names it with documentId "sha256:<id>" or an automatic persisted query's
// hash. It refuses a file that does not parse or holds no operation or several.
//
//	go run ./cmd/manifest docs/examples > manifest.json
//	TRUSTED_DOCUMENTS=manifest.json go run ./cmd/server
//
// Frontends built with Relay or Apollo Client write their manifest with their own tools
// (docs/security.md); this command is for operations kept as files.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"singletable/server"
)

// manifest is Apollo's persisted-query manifest, version 1.
type manifest struct {
	Format     string      `json:"format"`
	Version    int         `json:"version"`
	Operations []operation `json:"operations"`
}

type operation struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Body string `json:"body"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: manifest FOLDER > manifest.json   (every FOLDER/*.graphql, one operation each)")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "manifest:", err)
		os.Exit(1)
	}
}

// run writes the manifest of dir's .graphql files to out, after checking that the server loads it.
func run(dir string, out io.Writer) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.graphql"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no .graphql file in %s", dir)
	}
	sort.Strings(files)
	m := manifest{Format: "apollo-persisted-query-manifest", Version: 1}
	for _, f := range files {
		op, err := readOperation(f)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		m.Operations = append(m.Operations, op)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if _, err := server.ParseTrustedDocuments(data); err != nil {
		return err
	}
	_, err = out.Write(append(data, '\n'))
	return err
}

// readOperation is one file's entry: its text as it is, the hash of that text, and its one
// operation's name and kind.
func readOperation(path string) (operation, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return operation{}, err
	}
	doc, err := parser.ParseQuery(&ast.Source{Name: path, Input: string(text)})
	if err != nil {
		return operation{}, err
	}
	if len(doc.Operations) != 1 {
		return operation{}, errors.New("want exactly one operation")
	}
	sum := sha256.Sum256(text)
	op := doc.Operations[0]
	return operation{ID: hex.EncodeToString(sum[:]), Name: op.Name, Type: string(op.Operation), Body: string(text)}, nil
}
