package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"singletable/graph/model"
	"singletable/repository"
	"singletable/server"
)

// exampleDir holds the documented example operations: one operation per .graphql file, its
// variables (if any) in the .json file of the same name. The README shows some of them.
const exampleDir = "../docs/examples"

// example is one documented operation.
type example struct {
	name  string // file name without extension
	query string
	vars  map[string]any
	// live: the operation is a subscription, run by TestDocumentedSubscriptionsRun.
	live bool
}

// loadExamples reads every example in file-name order; the numbered names give the order in which
// they run, since later examples may read what earlier mutations wrote.
func loadExamples(t *testing.T) []example {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(exampleDir, "*.graphql"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	var out []example
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ex := example{name: strings.TrimSuffix(filepath.Base(f), ".graphql"), query: string(src)}
		if doc, err := parser.ParseQuery(&ast.Source{Input: ex.query}); err == nil && len(doc.Operations) == 1 {
			ex.live = doc.Operations[0].Operation == ast.Subscription
		}
		if raw, err := os.ReadFile(strings.TrimSuffix(f, ".graphql") + ".json"); err == nil {
			if err := json.Unmarshal(raw, &ex.vars); err != nil {
				t.Fatalf("%s.json: %v", ex.name, err)
			}
		} else if !os.IsNotExist(err) {
			t.Fatal(err)
		}
		out = append(out, ex)
	}
	return out
}

// TestDocumentedExamplesRun runs every example operation against the sample data, through the
// HTTP handler, in file order: each must answer without errors, with data, and without an empty
// list anywhere (an example that shows nothing teaches nothing). A documented example that stops
// matching the schema or the sample data fails here.
func TestDocumentedExamplesRun(t *testing.T) {
	examples := loadExamples(t)
	if len(examples) < 6 {
		t.Fatalf("want at least 6 examples in %s, found %d", exampleDir, len(examples))
	}
	a := newAPI(t, server.Config{})
	if _, err := a.repo.Seed(context.Background()); err != nil {
		t.Fatal(err)
	}
	kinds := map[ast.Operation]int{}
	data := map[string]map[string]any{}
	for _, ex := range examples {
		doc, err := parser.ParseQuery(&ast.Source{Name: ex.name, Input: ex.query})
		if err != nil {
			t.Fatalf("%s: %v", ex.name, err)
		}
		if len(doc.Operations) != 1 {
			t.Fatalf("%s: want exactly one operation per file, found %d", ex.name, len(doc.Operations))
		}
		kinds[doc.Operations[0].Operation]++
		if ex.live {
			continue // TestDocumentedSubscriptionsRun
		}
		if _, ok := ex.vars["idempotencyKey"]; ok {
			// DynamoDB Local remembers a transaction's idempotency token (derived from the
			// customer and the key) across tables for ten minutes, and the sample customer's id is
			// the same in every run: a fixed key would collide with the previous run's order.
			ex.vars["idempotencyKey"] = fmt.Sprintf("%v-%d", ex.vars["idempotencyKey"], time.Now().UnixNano())
		}
		r := a.query(ex.query, ex.vars)
		if len(r.Errors) > 0 {
			t.Fatalf("%s: errors %+v", ex.name, r.Errors)
		}
		var d map[string]any
		if err := json.Unmarshal(r.Data, &d); err != nil || len(d) == 0 {
			t.Fatalf("%s: no data: %s", ex.name, r.Data)
		}
		if p := emptyPart(d, "data"); p != "" {
			t.Errorf("%s: %s is empty: %s", ex.name, p, r.Data)
		}
		if r.Extensions.DynamoDB == nil || r.Extensions.DynamoDB.TotalCalls == 0 {
			t.Errorf("%s: the answer does not say what it cost (extensions.dynamodb)", ex.name)
		}
		data[ex.name] = d
		if strings.Contains(ex.query, "@defer") {
			deferredExampleRuns(t, a, ex, r)
		}
	}
	if kinds[ast.Query] == 0 || kinds[ast.Mutation] == 0 {
		t.Errorf("want queries and mutations among the examples, have %v", kinds)
	}

	// The location the createLocation example makes is one the locations example lists.
	created, _ := data["08-create-location"]["createLocation"].(map[string]any)
	listed, _ := json.Marshal(data["09-locations"])
	if created == nil || !strings.Contains(string(listed), created["id"].(string)) {
		t.Errorf("the location created by 08-create-location (%v) is not among 09-locations: %s", created, listed)
	}
}

// deferredExampleRuns runs an example with @defer over multipart/mixed too: an initial payload
// and at least one incremental one, together the whole answer r.
func deferredExampleRuns(t *testing.T, a *api, ex example, r gqlResponse) {
	t.Helper()
	d := a.deferred(acceptMultipart, ex.query, ex.vars)
	if len(d.payloads) < 2 || len(d.payloads[0].Errors) > 0 {
		t.Fatalf("%s over multipart/mixed: %d payload(s), want incremental ones: %+v", ex.name, len(d.payloads), d.payloads)
	}
	sameData(t, ex.name+" over multipart/mixed", d.merged(t), r.Data)
}

// emptyPart returns the path of the first null root field or empty list in v, or "".
func emptyPart(v any, path string) string {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil && path == "data" {
				return path + "." + k
			}
			if p := emptyPart(e, path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		if len(v) == 0 {
			return path
		}
		for _, e := range v {
			if p := emptyPart(e, path+"[]"); p != "" {
				return p
			}
		}
	}
	return ""
}

// TestReadmeExamplesAreExampleFiles keeps the README's GraphQL examples true: each ```graphql
// block of the README must be, character for character, one of the example files that
// TestDocumentedExamplesRun runs.
func TestReadmeExamplesAreExampleFiles(t *testing.T) {
	files := map[string]bool{}
	for _, ex := range loadExamples(t) {
		files[ex.query] = true
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(readme), "```graphql\n")[1:]
	if len(blocks) == 0 {
		t.Fatal("the README shows no GraphQL example")
	}
	for i, b := range blocks {
		end := strings.Index(b, "```")
		if end < 0 {
			t.Fatalf("README graphql block %d is not closed", i+1)
		}
		if !files[b[:end]] {
			t.Errorf("README graphql block %d is not one of the files in %s:\n%s", i+1, exampleDir, b[:end])
		}
	}
}

// TestDocumentedSubscriptionsRun opens every subscription example over Server-Sent Events on the
// sample data, with the table's stream read, makes a change it covers (a ticket of the example's
// organization), and requires an event with data and no error.
func TestDocumentedSubscriptionsRun(t *testing.T) {
	var live []example
	for _, ex := range loadExamples(t) {
		if ex.live {
			live = append(live, ex)
		}
	}
	if len(live) == 0 {
		t.Fatal("no subscription example")
	}
	a := newLiveAPI(t, server.Config{})
	if _, err := a.repo.Seed(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, ex := range live {
		s := a.subscribeSSE(adminToken(t), ex.query, ex.vars)
		time.Sleep(200 * time.Millisecond)
		orgID, _ := ex.vars["organizationId"].(string)
		parts, err := model.Organizations.Decode("organizationId", orgID)
		if err != nil {
			t.Fatalf("%s: the example's organizationId: %v", ex.name, err)
		}
		ref := parts[0]
		users, err := a.repo.UsersOfOrganization(context.Background(), ref, repository.PageArgs{First: 1})
		if err != nil || len(users.Items) == 0 {
			t.Fatalf("%s: the organization's users: %v", ex.name, err)
		}
		if _, err := a.repo.CreateTicket(context.Background(), ref, users.Items[0].ID, "Documented", "b"); err != nil {
			t.Fatal(err)
		}
		e, ok := s.next(waitFor)
		if !ok || len(e.Errors) > 0 || len(e.Data) == 0 || string(e.Data) == "null" {
			t.Fatalf("%s: event %s %+v (delivered: %v)", ex.name, e.Data, e.Errors, ok)
		}
		s.cancel()
	}
}
