package graph_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRelayCompilerAcceptsDeleteRecord runs the Relay compiler (scripts/relay-check.sh) on the
// schema snapshot: a removal selected as Relay clients write it, `deleteTicket(input: $i) {
// deletedId @deleteRecord }`, compiles. Against a schema whose DeletePayload lacks deletedId it
// must not, so the check can fail.
func TestRelayCompilerAcceptsDeleteRecord(t *testing.T) {
	script := relayCheckScript(t)
	if out, err := exec.Command(script).CombinedOutput(); err != nil {
		t.Fatalf("the Relay compiler refuses the snapshot: %v\n%s", err, out)
	}
	snapshot, err := os.ReadFile("testdata/schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(snapshot), "deletedId: ID!", "removedId: ID!", 1)
	if broken == string(snapshot) {
		t.Fatal("the snapshot has no DeletePayload.deletedId to take away")
	}
	path := filepath.Join(t.TempDir(), "schema.graphql")
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(script, path).CombinedOutput(); err == nil {
		t.Fatalf("the Relay compiler accepts a schema without deletedId:\n%s", out)
	}
}

// relayCheckScript is scripts/relay-check.sh, once its pinned compiler is installed.
func relayCheckScript(t *testing.T) string {
	return pinnedTool(t, "relay-check", "the Relay compiler")
}

// pinnedTool is scripts/<name>.sh, once the npm packages it runs (what, in messages) are installed
// in scripts/<name> from its lock file: the test fails, saying how to install them, otherwise.
func pinnedTool(t *testing.T, name, what string) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("%s needs Node.js (node and npm) on PATH", what)
	}
	tool := filepath.Join(root, "scripts", name)
	lock, err := os.ReadFile(filepath.Join(tool, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	installed, _ := os.ReadFile(filepath.Join(tool, "node_modules", ".package-lock.json.installed"))
	if !bytes.Equal(lock, installed) {
		t.Fatalf("%s is not installed in scripts/%s, or its lock file changed since: "+
			"run `make deps` (or scripts/npm-ci.sh scripts/%s) and this test again", what, name, name)
	}
	return filepath.Join(root, "scripts", name+".sh")
}

// TestRelayCompilerAcceptsDefer: a Relay client's deferred fragment spread, `...Fragment
// @defer(label: "users")` (scripts/relay-check/src/OrganizationUsers.js), compiles against the
// snapshot, which declares the @defer the server serves; against a schema that does not declare
// it, the compiler refuses it, so the check can fail.
func TestRelayCompilerAcceptsDefer(t *testing.T) {
	script := relayCheckScript(t)
	snapshot, err := os.ReadFile("testdata/schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(script).CombinedOutput(); err != nil || !strings.Contains(string(snapshot), "directive @defer(") {
		t.Fatalf("the Relay compiler refuses @defer against the snapshot (or it declares none): %v\n%s", err, out)
	}
	var kept []string
	for _, line := range strings.Split(string(snapshot), "\n") {
		if !strings.HasPrefix(line, "directive @defer(") {
			kept = append(kept, line)
		}
	}
	path := filepath.Join(t.TempDir(), "schema.graphql")
	if err := os.WriteFile(path, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(script, path).CombinedOutput(); err == nil {
		t.Fatalf("the Relay compiler accepts @defer on a schema without it:\n%s", out)
	}
}
