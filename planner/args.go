package planner

import (
	"encoding/json"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"singletable/repository"
)

// ListArgs are a list's arguments in typed form, as a list started ahead of its resolver takes
// them: the page size and the filters (Filters names them per list). The resolver's own arguments
// (coerced by gqlgen) spell the same list, so that both find one read.
type ListArgs struct {
	First         int
	Status        *string
	After, Before *time.Time
}

// plainArgs are the typed arguments of a list field asked with args, and whether the list has the
// plain form that may be started ahead: its first page (no `after`), a valid page size, filters
// that parse. gqlgen has validated the operation and coerced its variables before any resolver
// runs, so a list that fails here is one its own resolver reports.
func (f *Field) plainArgs(args map[string]any) (ListArgs, bool) {
	if args["after"] != nil {
		return ListArgs{}, false
	}
	a := ListArgs{First: f.firstOf(args)}
	if a.First == 0 {
		return ListArgs{}, false
	}
	ok := true
	if v, set := args[f.Filters.Status]; set && v != nil {
		s, isString := v.(string)
		a.Status, ok = &s, isString
	}
	for _, t := range []struct {
		arg string
		dst **time.Time
	}{{f.Filters.After, &a.After}, {f.Filters.Before, &a.Before}} {
		if v, set := args[t.arg]; ok && set && v != nil {
			tm, err := graphql.UnmarshalTime(v)
			*t.dst, ok = &tm, err == nil
		}
	}
	return a, ok
}

// Filtered reports whether the arguments narrow the list.
func (a ListArgs) Filtered() bool { return a.Status != nil || a.After != nil || a.Before != nil }

// Page is the page the arguments ask for (the first).
func (a ListArgs) Page() repository.PageArgs { return repository.PageArgs{First: a.First} }

// intArg reads an Int argument of a collected field (after variables and defaults).
func intArg(args map[string]any, name string) (int, bool) {
	switch v := args[name].(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case int32:
		return int(v), true
	case float64:
		return int(v), v == float64(int(v))
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	}
	return 0, false
}

// firstOf is how many elements one page of list f asked with args has at most: its `first`, or
// for a plain list without one (a product's stock) its MaxKeys.
func (f *Field) firstOf(args map[string]any) int {
	if _, paged := args["first"]; !paged && f.MaxKeys > 0 {
		return f.MaxKeys
	}
	return FirstArg(args)
}

// pageOf is a root list's page size: FirstArg, or within the field's own MaxFirst when it has one.
func (f *Field) pageOf(args map[string]any) int {
	if f.MaxFirst == 0 {
		return FirstArg(args)
	}
	return firstWithin(args, f.DefaultFirst, f.MaxFirst)
}

// FirstArg is an argument map's `first` if it is a valid page size, the default when absent, and
// 0 when out of range (the field's own resolver then reports the error).
func FirstArg(args map[string]any) int {
	return firstWithin(args, repository.DefaultPageSize, repository.MaxPageSize)
}

// firstWithin is an argument map's `first` if it is within 1..most, def when absent, and 0 when
// out of range.
func firstWithin(args map[string]any, def, most int) int {
	n, ok := intArg(args, "first")
	if !ok {
		return def
	}
	if n < 1 || n > most {
		return 0
	}
	return n
}
