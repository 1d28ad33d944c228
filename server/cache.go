package server

import (
	lru "container/list"
	"context"
	"strconv"
	"sync"

	"github.com/vektah/gqlparser/v2/ast"
)

// Defaults of the two GraphQL caches' byte budgets.
const (
	DefaultQueryCacheBytes = 16 << 20
	DefaultAPQCacheBytes   = 4 << 20
)

// byteCache is a least-recently-used cache bounded by the bytes its entries hold, not by their
// number: distinct large documents (comments make any document large) would otherwise grow an
// entry-bounded cache by gigabytes. It implements graphql.Cache. An entry larger than the whole
// budget is not kept.
type byteCache[T any] struct {
	mu    sync.Mutex
	max   int
	used  int
	size  func(key string, v T) int
	order *lru.List // front = most recently used
	items map[string]*lru.Element
}

type cacheEntry[T any] struct {
	key  string
	val  T
	size int
}

func newByteCache[T any](maxBytes int, size func(key string, v T) int) *byteCache[T] {
	return &byteCache[T]{max: maxBytes, size: size, order: lru.New(), items: map[string]*lru.Element{}}
}

func (c *byteCache[T]) Get(_ context.Context, key string) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		var zero T
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry[T]).val, true
}

func (c *byteCache[T]) Add(_ context.Context, key string, v T) {
	n := c.size(key, v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.remove(el)
	}
	if n > c.max {
		return
	}
	for c.used+n > c.max {
		c.remove(c.order.Back())
	}
	c.items[key] = c.order.PushFront(&cacheEntry[T]{key: key, val: v, size: n})
	c.used += n
}

func (c *byteCache[T]) remove(el *lru.Element) {
	e := el.Value.(*cacheEntry[T])
	c.order.Remove(el)
	delete(c.items, e.key)
	c.used -= e.size
}

// perPrincipal is the persisted-query cache: every entry belongs to the principal that registered
// it (principalKey: the token's subject, or the client's address without one), so a hash sent
// alone finds only documents its own principal sent. One cache shared by everyone would answer a
// bare hash with another principal's document, telling the caller that someone ran that exact
// text. All principals share the one byte budget, so memory stays bounded however many there are;
// a principal that registers a lot pushes the oldest documents out, and their owners send them
// again (the protocol's ordinary miss). A request with no principal key neither finds nor stores.
// In a fleet, shared holds the entries for every instance (sharedPersisted); cache then answers
// only while the shared store is out of reach.
type perPrincipal struct {
	cache  *byteCache[string]
	shared *sharedPersisted
}

// entryKey joins principal and hash unambiguously: the principal's length comes first, since a
// subject may hold any character.
func (perPrincipal) entryKey(ctx context.Context, hash string) (string, bool) {
	p, ok := principalKey(ctx)
	if !ok {
		return "", false
	}
	return strconv.Itoa(len(p)) + ":" + p + hash, true
}

func (c perPrincipal) Get(ctx context.Context, hash string) (string, bool) {
	key, ok := c.entryKey(ctx, hash)
	if !ok {
		return "", false
	}
	if q, found, err := c.shared.get(ctx, hash); err == nil {
		return q, found
	}
	return c.cache.Get(ctx, key)
}

func (c perPrincipal) Add(ctx context.Context, hash, query string) {
	if key, ok := c.entryKey(ctx, hash); ok && c.shared.add(ctx, hash, query) != nil {
		c.cache.Add(ctx, key, query)
	}
}

// Per-entry bookkeeping: the list element, the map slot and the entry itself.
const cacheEntryOverhead = 160

// apqSize is what one persisted query holds: its key (principal and hash) and its text.
func apqSize(key, v string) int { return cacheEntryOverhead + len(key) + len(v) }

// astNodeBytes is the heap a parsed document takes per AST node (field, argument, value,
// directive, fragment, variable): BenchmarkParsedDocumentBytes measures about 185 bytes (each node
// carries its position, definition pointers and child slices); 256 leaves a margin.
const astNodeBytes = 256

// docSize is what one parsed query holds: the query text (the key, comments included) and its
// syntax tree, estimated from its node count.
func docSize(key string, doc *ast.QueryDocument) int {
	return cacheEntryOverhead + len(key) + astNodeBytes*countNodes(doc)
}

// countNodes counts a document's AST nodes. Documents in the cache passed the bounds of Limits,
// so this walk is short.
func countNodes(doc *ast.QueryDocument) int {
	if doc == nil {
		return 0
	}
	n := 0
	var set func(ast.SelectionSet)
	var value func(*ast.Value)
	value = func(v *ast.Value) {
		if v == nil {
			return
		}
		n++
		for _, c := range v.Children {
			value(c.Value)
		}
	}
	dirs := func(ds ast.DirectiveList) {
		for _, d := range ds {
			n++
			for _, a := range d.Arguments {
				n++
				value(a.Value)
			}
		}
	}
	set = func(s ast.SelectionSet) {
		for _, sel := range s {
			n++
			switch x := sel.(type) {
			case *ast.Field:
				for _, a := range x.Arguments {
					n++
					value(a.Value)
				}
				dirs(x.Directives)
				set(x.SelectionSet)
			case *ast.InlineFragment:
				dirs(x.Directives)
				set(x.SelectionSet)
			case *ast.FragmentSpread:
				dirs(x.Directives)
			}
		}
	}
	for _, op := range doc.Operations {
		n++
		n += len(op.VariableDefinitions)
		dirs(op.Directives)
		set(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		n++
		dirs(f.Directives)
		set(f.SelectionSet)
	}
	return n
}
