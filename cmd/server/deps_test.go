package main

import (
	"os/exec"
	"strings"
	"testing"
)

// benchOnly are packages that exist for the benchmark alone: the server binary must not link
// them, so that nothing measured against production ships in it.
var benchOnly = []string{"singletable/repository/benchfloor"}

func TestServerDoesNotLinkBenchmarkCode(t *testing.T) {
	server := goListDeps(t, ".")
	bench := goListDeps(t, "../bench")
	for _, pkg := range benchOnly {
		if !bench[pkg] {
			// The check below would pass for a package that was renamed or removed.
			t.Errorf("cmd/bench does not import %s: update benchOnly", pkg)
		}
		if server[pkg] {
			t.Errorf("cmd/server links %s, which only the benchmark may use", pkg)
		}
	}
}

// goListDeps returns the import paths of every package the package in dir depends on.
func goListDeps(t *testing.T, dir string) map[string]bool {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", dir, err)
	}
	deps := map[string]bool{}
	for _, line := range strings.Fields(string(out)) {
		deps[line] = true
	}
	return deps
}
