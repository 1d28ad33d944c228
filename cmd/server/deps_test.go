package main

import (
	"os/exec"
	"strings"
	"testing"
)

// benchOnly are packages that exist for the benchmark alone: the server binary must not link
// them, so that nothing measured against production ships in it.
var benchOnly = []string{"singletable/repository/benchfloor", "singletable/loaders/perparent"}

func TestServerDoesNotLinkBenchmarkCode(t *testing.T) {
	bench := goListDeps(t, "../bench")
	binaries := map[string]map[string]bool{"cmd/server": goListDeps(t, "."), "cmd/lambda": goListDeps(t, "../lambda")}
	for _, pkg := range benchOnly {
		if !bench[pkg] {
			// The check below would pass for a package that was renamed or removed.
			t.Errorf("cmd/bench does not import %s: update benchOnly", pkg)
		}
		for name, deps := range binaries {
			if deps[pkg] {
				t.Errorf("%s links %s, which only the benchmark may use", name, pkg)
			}
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
