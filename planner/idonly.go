package planner

import "github.com/99designs/gqlgen/graphql"

// IDOnly reports whether field f of objects of type typ is a to-one field (a ToOne row: its
// parent's item holds the reference of what it returns, as its Keys read it) whose selection asks
// for nothing of that object but its ID and __typename: such a field costs no read. The one rule
// for the three places that must agree: the plan's levels look nothing up for it (TablePlanner),
// explain and the complexity price it at nothing (the walk's rowOf), and its resolver answers it
// from the reference alone (resolvers' toOne, through model.NodeType.Named). Removals leave no
// reference to a removed object behind, so the object such an ID names exists.
func (o *Plan) IDOnly(typ string, f graphql.CollectedField) bool {
	if o == nil || o.op == nil || f.Field == nil {
		return false
	}
	row := FieldOf(typ, f.Name)
	if row == nil || row.Kind != ToOne || len(f.Selections) == 0 {
		return false
	}
	for _, c := range o.collect(f.Selections, row.Of) {
		if c.Name != "id" && c.Name != "__typename" {
			return false
		}
	}
	return true
}
