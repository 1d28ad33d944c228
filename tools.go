//go:build tools

// Package tools pins the versions of the code generator and linter the Makefile runs, so that
// `go run` uses the versions in go.mod.
package tools

import (
	_ "github.com/99designs/gqlgen"
	_ "honnef.co/go/tools/cmd/staticcheck"
)
