package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"singletable/server"
)

// apolloResult is one result Apollo Client delivered to its watcher (scripts/apollo-defer).
type apolloResult struct {
	DataState string          `json:"dataState"`
	Loading   bool            `json:"loading"`
	Error     *string         `json:"error"`
	Data      json.RawMessage `json:"data"`
}

// Apollo Client 4 (pinned in scripts/apollo-defer, installed by make deps), with its
// Defer20220824Handler and watchQuery, renders a deferred query twice: first streaming, the
// organizations without their users, then complete, with them.
func TestApolloClientRendersDeferredQueryTwice(t *testing.T) {
	dir := apolloTool(t)
	a := newAPI(t, server.Config{})
	a.seedSaaS(3, 4, 5)
	query := `query OrgUsers { organizations(first: 3) { edges { node { id name ... @defer(label: "users") { users(first: 4) { edges { node { id email } } } } } } } }`
	cmd := exec.Command("node", "defer.mjs", a.url+"/query", a.token, query)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("apollo-defer: %v\n%s\n%s", err, out, stderr.String())
	}
	var results []apolloResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r apolloResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("apollo-defer printed %q", sc.Text())
		}
		results = append(results, r)
	}
	var first, last *apolloResult
	for i := range results {
		if results[i].Data != nil && string(results[i].Data) != "null" && first == nil {
			first = &results[i]
		}
		last = &results[i]
	}
	if first == nil || first.DataState != "streaming" || !strings.Contains(string(first.Data), `"organizations"`) || strings.Contains(string(first.Data), `"users"`) {
		t.Fatalf("first render %+v, want the organizations streaming without their users (all: %s)", first, out)
	}
	if last.DataState != "complete" || last.Loading || last.Error != nil || strings.Count(string(last.Data), `"email"`) != 12 {
		t.Fatalf("last render %+v, want complete with the 12 users (all: %s)", last, out)
	}
}

// apolloTool is scripts/apollo-defer, once its pinned npm packages are installed from its lock
// file (scripts/npm-ci.sh, which make deps runs): the test fails, saying how, otherwise.
func apolloTool(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "scripts", "apollo-defer"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("Apollo Client's test needs Node.js (node and npm) on PATH")
	}
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	installed, _ := os.ReadFile(filepath.Join(dir, "node_modules", ".package-lock.json.installed"))
	if !bytes.Equal(lock, installed) {
		t.Fatal("Apollo Client is not installed in scripts/apollo-defer, or its lock file changed since: " +
			"run `make deps` (or scripts/npm-ci.sh scripts/apollo-defer) and this test again")
	}
	return dir
}
