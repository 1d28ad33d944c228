package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"singletable/apperr"
	"singletable/auth"
	"singletable/planner"
)

// Explain is the plan of the operation of p (planner.Explain) for the caller of ctx, which holds
// the operation's context: the resolvers answer what the planner cannot know from its table
// (which lists a level starts, how root IDs decode and whether the caller sees them, which root
// lists are narrowed), the way they answer it when the operation runs. shards is N of AP20.
// Nothing is read. Without record only the counts are kept (the complexity limit).
func Explain(ctx context.Context, p *planner.Plan, shards int, record bool) *planner.Explanation {
	return planner.Explain(p, explainer{ctx: ctx, shards: shards}, record)
}

// explainer is the resolvers' planner.Execution.
type explainer struct {
	ctx    context.Context
	shards int
}

var _ planner.Execution = explainer{}

// Roots decodes and scope-checks root lookup f's IDs as planRoots does, reading nothing.
func (e explainer) Roots(f graphql.CollectedField, row *planner.Field) ([]planner.RootRead, error) {
	var vars map[string]any
	if graphql.HasOperationContext(e.ctx) {
		vars = graphql.GetOperationContext(e.ctx).Variables
	}
	d, field, ids := rootIDs(row, f.ArgumentMap(vars))
	if len(ids) > maxNodes {
		return nil, errTooManyIDs()
	}
	reads := make([]planner.RootRead, len(ids))
	for i, id := range ids {
		node, parts, dec, err := decodeRead(e.ctx, d, field, id)
		if err == nil {
			k, kerr := node.KeyOf(parts)
			reads[i] = planner.RootRead{Type: node.TypeName(), Key: k.PK + "\x00" + k.SK, AfterRead: dec == auth.AfterRead, Err: kerr}
			continue
		}
		reads[i].Err = err
	}
	return reads, nil
}

// Starts reports whether the resolvers start list for a whole level (listStarts).
func (explainer) Starts(list *planner.Field) bool { return listStarts[list] != nil }

// Narrowed reports whether root list row is narrowed to the caller's own object
// (organizationsPage, customersPage).
func (e explainer) Narrowed(row *planner.Field) bool {
	c := auth.Caller(e.ctx)
	switch row {
	case planner.FieldOf("Query", "organizations"):
		_, narrowed := c.OwnOrganization()
		return narrowed
	case planner.FieldOf("Query", "customers"):
		_, narrowed := c.OwnCustomer()
		return narrowed
	}
	return false
}

// Allowed is the FORBIDDEN the server's field guard answers for a root field the caller's roles
// do not allow, and for introspection while it is off.
func (e explainer) Allowed(object, field string) error {
	switch field {
	case "__typename":
		return nil
	case "__schema", "__type":
		if graphql.HasOperationContext(e.ctx) && graphql.GetOperationContext(e.ctx).DisableIntrospection {
			return &apperr.Error{Code: apperr.CodeForbidden, Message: "introspection is disabled on this server"}
		}
		return nil
	}
	if !auth.Caller(e.ctx).MayUse(object, field) {
		return ForbiddenField(field)
	}
	return nil
}

// Shards is N, the Queries of one page of ordersByStatus.
func (e explainer) Shards() int { return e.shards }

// ForbiddenField is the FORBIDDEN error of a root field or mutation the caller's roles do not
// allow: the server's field guard answers it before the resolver runs, and an explain of the
// operation reports it.
func ForbiddenField(field string) error {
	return &apperr.Error{Code: apperr.CodeForbidden, Message: "your roles do not allow " + field}
}
