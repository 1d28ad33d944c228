package planner

import "github.com/vektah/gqlparser/v2/ast"

// TablePlanner plans levels from Table: everything the table allows is read ahead.
type TablePlanner struct{}

// Level walks the fields sels selects on objects of type typ once, keeping those the table has a
// row for; the levels of the places below (a list's elements, a relation's target) are planned
// through o, so that every place is planned once per operation. The elements of a list look up
// nothing that the list's own read answers (list.Primes) or that it looks up once for all of them
// (list.SameForAll).
func (TablePlanner) Level(o *Plan, sels ast.SelectionSet, typ string, list *Field) *Level {
	l := &Level{Type: typ}
	for _, f := range o.collect(sels, typ) {
		row := FieldOf(typ, f.Name)
		if row == nil || o.IDOnly(typ, f) {
			continue // reads nothing, or answered from the objects' own items (IDOnly)
		}
		if _, shared := list.sameForAll(f.Name); shared {
			l.shared = appendNew(l.shared, sharedUse{name: f.Name, target: o.ObjectsOf(f, row.Of)})
			continue
		}
		if list.primes(f.Name) {
			if row.Kind == Items || row.Kind == ToOne {
				// The list's read answers the field (an order's items come with the orders),
				// but what it returns may still need reads of its own: its level follows.
				l.addToOne(row, o.ObjectsOf(f, row.Of), true)
			}
			continue
		}
		args := f.ArgumentMap(o.op.Variables)
		switch row = row.variant(args); row.Kind {
		case ToOne:
			l.addToOne(row, o.ObjectsOf(f, row.Of), false)
		case Items:
			l.addToOne(row, o.ObjectsOf(f, row.Of), false)
			if row.Combined != nil && l.combined == nil {
				l.combined = &ListUse{Field: row, Alias: f.Alias, Plain: true}
			}
		case Free:
			if row.Of != "" {
				l.addToOne(row, o.ObjectsOf(f, row.Of), true) // nothing to look up; its level follows
			}
		case Relation:
			l.addRelation(row.Rel, o.ObjectsOf(f, row.Of))
		case List:
			u := &ListUse{Field: row, Alias: f.Alias, Nodes: o.NodesOf(f)}
			u.Args, u.Plain = row.plainArgs(args)
			l.lists = append(l.lists, u)
			if row.Combined != nil && l.combined == nil && u.Plain && !u.Args.Filtered() {
				l.combined = u
			}
		}
	}
	return l
}
