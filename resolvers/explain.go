package resolvers

import (
	"context"
	"errors"

	"github.com/99designs/gqlgen/graphql"

	"singletable/apperr"
	"singletable/auth"
	"singletable/graph/model"
	"singletable/planner"
	"singletable/repository"
	"singletable/repository/saas"
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
	d, field, ids := rootIDs(row, f.ArgumentMap(e.vars()))
	if len(ids) > maxNodes {
		return nil, errTooManyIDs()
	}
	reads := make([]planner.RootRead, len(ids))
	for i, id := range ids {
		r := &completions{}
		node, parts, err := decodeRead(e.ctx, r, d, field, id)
		if err != nil {
			reads[i].Err = err
			continue
		}
		key := id // a completed ID's key is not known before its Query: the ID names the object
		if !r.asked {
			k, kerr := node.KeyOf(parts)
			if kerr != nil {
				reads[i].Err = kerr
				continue
			}
			key = k.PK + "\x00" + k.SK
		}
		reads[i] = planner.RootRead{Type: node.TypeName(), Key: key, Completes: r.asked}
	}
	return reads, nil
}

// completions is the model.KeyReader an explain decodes root IDs with: where completing a legacy
// ID would read (the Query of a ticket's partition for a caller who sees every organization), it
// notes that the ID costs that Query and answers as if it had found the object, reading nothing.
type completions struct{ asked bool }

var (
	_ model.KeyReader    = (*completions)(nil)
	_ model.TicketFinder = (*completions)(nil)
)

// Lookup is never asked while IDs are decoded; it reads nothing.
func (c *completions) Lookup(context.Context, repository.Key, string) (repository.Entity, error) {
	return nil, apperr.Internal("explain", errors.New("a lookup while decoding an ID"))
}

// TicketByID notes the Query a legacy ticket ID costs and answers a ticket of an organization no
// other ID names (the caller sees every organization: it is allowed whatever it is).
func (c *completions) TicketByID(_ context.Context, id string) (*saas.Ticket, error) {
	c.asked = true
	return &saas.Ticket{ID: id, OrgID: "explain"}, nil
}

// vars are the operation's variables.
func (e explainer) vars() map[string]any {
	if graphql.HasOperationContext(e.ctx) {
		return graphql.GetOperationContext(e.ctx).Variables
	}
	return nil
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
	if object != "Query" && object != "Mutation" && object != "Subscription" {
		return FieldPolicy(e.ctx, object, field)
	}
	if !auth.Caller(e.ctx).MayUse(object, field) {
		return ForbiddenField(field)
	}
	return nil
}

// Subscribes runs the argument checks subscription root field f opens with (its filter's, the
// same functions its resolver calls), reading nothing: an explain refuses what subscribing
// refuses.
func (e explainer) Subscribes(f graphql.CollectedField) error {
	args := f.ArgumentMap(e.vars())
	opt := func(name string) *string {
		if s, ok := idArg(args, name); ok {
			return &s
		}
		return nil
	}
	var err error
	switch f.Name {
	case "ticketChanged":
		org, _ := idArg(args, "organizationId")
		_, err = ticketChanges(e.ctx, org, opt("reporterId"))
	case "orderChanged":
		_, err = orderChanges(e.ctx, opt("customerId"))
	case "employeeChanged":
		_, err = employeeChanges(e.ctx, opt("departmentId"))
	}
	return err
}

// Shards is N, the Queries of one page of ordersByStatus.
func (e explainer) Shards() int { return e.shards }

// ForbiddenField is the FORBIDDEN error of a root field or mutation the caller's roles do not
// allow: the server's field guard answers it before the resolver runs, and an explain of the
// operation reports it.
func ForbiddenField(field string) error {
	return &apperr.Error{Code: apperr.CodeForbidden, Message: "your roles do not allow " + field}
}

// FieldPolicy is the FORBIDDEN of a field below the root that auth's field policy narrows away
// from every role of the caller: the one check the server's field guard runs before the field's
// resolver, and explain on every field it walks, so that the two refuse alike.
func FieldPolicy(ctx context.Context, object, field string) error {
	if auth.Narrows(object) && !auth.Caller(ctx).MayRead(object, field) {
		return ForbiddenField(object + "." + field)
	}
	return nil
}
