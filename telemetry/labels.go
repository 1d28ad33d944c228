package telemetry

import (
	"sync"
	"unicode/utf8"
)

// Label values that stand for many operation names.
const (
	// AnonymousOperation labels operations whose document gives them no name.
	AnonymousOperation = "anonymous"
	// OtherOperation labels the names seen after the label set is full, and names that are not
	// GraphQL names.
	OtherOperation = "other"
)

// labelSet admits the first max distinct operation names as label values; later names, and
// anything that is not a GraphQL name, map to OtherOperation. It keeps the number of series
// bounded however many names clients invent.
type labelSet struct {
	mu   sync.Mutex
	max  int
	seen map[string]struct{}
}

func newLabelSet(max int) *labelSet {
	return &labelSet{max: max, seen: map[string]struct{}{}}
}

func (s *labelSet) label(name string) string {
	if name == "" {
		return AnonymousOperation
	}
	if !isGraphQLName(name) {
		return OtherOperation
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[name]; ok {
		return name
	}
	if len(s.seen) >= s.max {
		return OtherOperation
	}
	s.seen[name] = struct{}{}
	return name
}

// isGraphQLName reports whether name is a GraphQL Name (/[_A-Za-z][_0-9A-Za-z]*/) of at most 64
// characters: what a parsed document can name an operation.
func isGraphQLName(name string) bool {
	if len(name) > 64 || !utf8.ValidString(name) {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return name != ""
}
