// Command tablegen writes the table as code from the one definition -create-table uses
// (repository.Definition): deploy/template.yaml, an AWS CloudFormation template (SAM welcome),
// and deploy/nosql-workbench-model.json, a NoSQL Workbench data model with the sample data.
// `go generate ./...` runs it; a test fails if the committed files drift from the definition.
//
//	go run ./cmd/tablegen -out deploy
package main

//go:generate go run . -out ../../deploy

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", "deploy", "folder to write the template and the data model to")
	flag.Parse()
	files, err := render()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tablegen:", err)
		os.Exit(1)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(*out, name), content, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "tablegen:", err)
			os.Exit(1)
		}
	}
}
