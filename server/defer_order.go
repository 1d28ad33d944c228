package server

import (
	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// deliveredShape is what the payloads written so far delivered: every object key and list index,
// without the values. An incremental result may only be written once its path is delivered (the
// incremental-delivery spec; a client merges it into the object at that path): gqlgen's executor
// sends the results of a nested @defer as soon as they are resolved, which may be before the
// result of the fragment around them, whose data holds their path. payloads.respond holds such a
// result back until its path is delivered.
type deliveredShape struct {
	kids map[any]*deliveredShape // a field's name (string), a list index (int)
}

// at is the node at path, nil when the path was not delivered.
func (s *deliveredShape) at(path ast.Path) *deliveredShape {
	for _, el := range path {
		if s == nil || s.kids == nil {
			return nil
		}
		switch el := el.(type) {
		case ast.PathName:
			s = s.kids[string(el)]
		case ast.PathIndex:
			s = s.kids[int(el)]
		default:
			return nil
		}
	}
	return s
}

// add records v, a decoded value (decodeOrdered), as delivered under s.
func (s *deliveredShape) add(v any) {
	child := func(k any) *deliveredShape {
		if s.kids == nil {
			s.kids = map[any]*deliveredShape{}
		}
		c := s.kids[k]
		if c == nil {
			c = &deliveredShape{}
			s.kids[k] = c
		}
		return c
	}
	switch v := v.(type) {
	case *orderedObject:
		for _, e := range v.entries {
			child(e.key).add(e.value)
		}
	case []any:
		for i, e := range v {
			child(i).add(e)
		}
	}
}

// deliverable reports whether resp's path was delivered, and if so records its data.
func (s *deliveredShape) deliverable(resp *graphql.Response, data any) bool {
	node := s.at(resp.Path)
	if node == nil {
		return false
	}
	node.add(data)
	return true
}

// moveBudget keeps the budget's figure (budgetRemaining, set on the payload gqlgen produced last,
// as the budget is settled) for the payload written last: a result held back comes after it.
// left is the figure carried so far; the returned one is to carry on.
func moveBudget(resp *graphql.Response, last bool, left *float64) *float64 {
	e, ok := resp.Extensions["dynamodb"].(dynamoDBEntry)
	if !ok {
		return left
	}
	if e.BudgetRemaining != nil && !last {
		left, e.BudgetRemaining = e.BudgetRemaining, nil
	} else if last && e.BudgetRemaining == nil && left != nil {
		e.BudgetRemaining = left
	}
	resp.Extensions["dynamodb"] = e
	return left
}
