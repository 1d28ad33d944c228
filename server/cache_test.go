package server

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// largeDocument is a distinct document of about size bytes: a real query padded with a comment,
// the cheapest way for a client to make a document large.
func largeDocument(i, size int) string {
	q := fmt.Sprintf("query Q%d { organizations(first: %d) { edges { node { id name users { edges { node { id name email } } } } } } }\n", i, i%100+1)
	return q + "# " + strings.Repeat("x", max(0, size-len(q)-2))
}

func parse(t testing.TB, q string) *ast.QueryDocument {
	t.Helper()
	doc, err := parser.ParseQuery(&ast.Source{Input: q})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestQueryCachesAreBoundedInBytes fills both caches with distinct large documents, the way a
// client cycling through unique documents would, and checks that neither holds more than its
// byte budget while the most recent entries stay.
func TestQueryCachesAreBoundedInBytes(t *testing.T) {
	ctx := context.Background()
	const budget = 1 << 20
	docs := newByteCache(budget, docSize)
	apq := newByteCache(budget, apqSize)
	for i := range 400 {
		q := largeDocument(i, 60<<10)
		docs.Add(ctx, q, parse(t, q))
		apq.Add(ctx, fmt.Sprintf("%064x", i), q)
		for name, c := range map[string]interface{ stats() (int, int) }{"parsed-query": docs, "persisted-query": apq} {
			if used, _ := c.stats(); used > budget {
				t.Fatalf("%s cache holds %d bytes after %d documents, budget %d", name, used, i+1, budget)
			}
		}
	}
	used, n := docs.stats()
	if n < 10 || n > budget/(60<<10) || used < budget/2 {
		t.Fatalf("parsed-query cache: %d entries in %d bytes; want it filled to its budget", n, used)
	}
	last := largeDocument(399, 60<<10)
	if _, ok := docs.Get(ctx, last); !ok {
		t.Fatal("the most recent document was evicted")
	}
	if _, ok := docs.Get(ctx, largeDocument(0, 60<<10)); ok {
		t.Fatal("the oldest document is still cached")
	}
	// An entry larger than the whole budget is not kept, and does not empty the cache.
	huge := largeDocument(1000, 2<<20)
	docs.Add(ctx, huge, parse(t, huge))
	if _, ok := docs.Get(ctx, huge); ok {
		t.Fatal("an entry over the budget was cached")
	}
	if _, after := docs.stats(); after != n {
		t.Fatalf("entries went from %d to %d after refusing an oversized one", n, after)
	}
	// Replacing a key does not count it twice.
	docs.Add(ctx, last, parse(t, last))
	if used2, n2 := docs.stats(); used2 != used || n2 != n {
		t.Fatalf("re-adding a key changed the cache from %d/%d to %d/%d", used, n, used2, n2)
	}
}

// BenchmarkParsedDocumentBytes measures the heap one parsed document holds per AST node, the
// figure behind astNodeBytes.
func BenchmarkParsedDocumentBytes(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("query { ")
	for i := range 300 {
		fmt.Fprintf(&sb, "a%d: organizations(first: %d) { edges { node { id name @include(if: true) } } } ", i, i%50+1)
	}
	sb.WriteString("}")
	q := sb.String()
	nodes := countNodes(parse(b, q))
	keep := make([]*ast.QueryDocument, 0, b.N)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range b.N {
		keep = append(keep, parse(b, q))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N)/float64(nodes), "heapbytes/node")
	runtime.KeepAlive(keep)
}

// Persisted queries are kept per principal, and no principal's key and hash can spell another's:
// a subject may hold any character, so the principal's length leads.
func TestPersistedQueryEntriesCannotCrossPrincipals(t *testing.T) {
	c := perPrincipal{cache: newByteCache(1<<20, apqSize)}
	as := func(principal string) context.Context {
		return context.WithValue(context.Background(), principalKeyCtx{}, principal)
	}
	c.Add(as("sub:ab"), "cd", "query A { __typename }")
	for _, other := range [][2]string{{"sub:a", "bcd"}, {"sub:abc", "d"}, {"sub:ab\n", "cd"}, {"", "sub:abcd"}} {
		if q, ok := c.Get(as(other[0]), other[1]); ok {
			t.Fatalf("principal %q with hash %q found %q", other[0], other[1], q)
		}
	}
	if q, ok := c.Get(as("sub:ab"), "cd"); !ok || q != "query A { __typename }" {
		t.Fatalf("the owner's own entry: %q %v", q, ok)
	}
	// Outside the /query chain there is no principal: nothing is found or stored.
	c.Add(context.Background(), "ef", "query B { __typename }")
	if _, ok := c.Get(context.Background(), "ef"); ok {
		t.Fatal("an entry without a principal was stored")
	}
	if _, n := c.cache.stats(); n != 1 {
		t.Fatalf("%d entries, want 1", n)
	}
}

// stats returns the bytes and entries held.
func (c *byteCache[T]) stats() (bytes, entries int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used, len(c.items)
}
