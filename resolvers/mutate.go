package resolvers

import (
	"context"

	"singletable/auth"
	"singletable/graph/model"
	"singletable/loaders"
	"singletable/repository"
)

// Every mutation resolver is one return statement made of the two halves of this file:
//
//	return given(ctx, organizationID("organizationId", input.OrganizationID), func(org string) (*model.User, error) {
//		return saved(ctx, userNode).entity(r.Repo.CreateUser(ctx, org, input.Name, input.Email))
//	})
//
// given is the way in. It decodes each global ID of the input and checks it against the caller's
// scope, the way every other ID entering the graph is checked (decodeVisible, and for an ID that
// does not carry its tenant the check after the read), and calls the write with the IDs' keys only
// when all of them passed: the write is a function literal for that reason alone, so that the
// repository never sees an undecoded ID or one from outside the caller's scope. The first failure
// is the answer, with the code and input field it has everywhere else: BAD_USER_INPUT naming the
// field for a malformed ID or an ID of another type, NOT_FOUND (as for a missing object) for an ID
// outside the caller's scope.
//
// saved is the way out. It hands everything the write wrote (the entity, and the relation items
// or order items written with it) to the request's loaders, so that the fields of the result, and
// later mutations of the same operation, read the write rather than an eventually consistent read
// that might miss it, and wraps the entity in its GraphQL type. Mutations whose input holds no ID
// use saved alone, on one line.

// inputID is a global ID given in a field of a mutation's input, with how its key parts become the
// key the repository takes (K: one id, a user's organization and id, a LocationRef, …).
type inputID[K any] struct {
	field string // the input field, named by BAD_USER_INPUT
	id    string
	typ   string // the node type the ID must name
	kind  string // names the object in the NOT_FOUND of an ID outside the caller's scope; "" for typ
	key   func(parts []string) K
	// absent marks an optional field left out: nothing to decode or check, the key is K's zero.
	absent bool
}

// The IDs an input may hold, one constructor per node type; field is the input field the ID came
// in, id what the client gave.

func organizationID(field, id string) inputID[string] {
	return inputID[string]{field: field, id: id, typ: model.TypeOrganization, key: firstPart}
}

// reporterID is a User ID given as a ticket's reporter.
func reporterID(field, id string) inputID[userKey] {
	return inputID[userKey]{field: field, id: id, typ: model.TypeUser, kind: "reporter", key: func(p []string) userKey {
		return userKey{org: p[0], id: p[1]}
	}}
}

func ticketID(field, id string) inputID[string] {
	return inputID[string]{field: field, id: id, typ: model.TypeTicket, key: firstPart}
}

func locationID(field, id string) inputID[repository.LocationRef] {
	return inputID[repository.LocationRef]{field: field, id: id, typ: model.TypeLocation, key: model.LocationRefOf}
}

func departmentID(field, id string) inputID[string] {
	return inputID[string]{field: field, id: id, typ: model.TypeDepartment, key: firstPart}
}

func employeeID(field, id string) inputID[string] {
	return inputID[string]{field: field, id: id, typ: model.TypeEmployee, key: firstPart}
}

func customerID(field, id string) inputID[string] {
	return inputID[string]{field: field, id: id, typ: model.TypeCustomer, key: firstPart}
}

func orderID(field, id string) inputID[orderKey] {
	return inputID[orderKey]{field: field, id: id, typ: model.TypeOrder, key: func(p []string) orderKey {
		return orderKey{customer: p[0], id: p[1]}
	}}
}

// optional is the ID of an optional input field, built by of when given: its key is nil when the
// field is left out.
func optional[K any](field string, id *string, of func(field, id string) inputID[K]) inputID[*K] {
	if id == nil {
		return inputID[*K]{field: field, absent: true}
	}
	in := of(field, *id)
	return inputID[*K]{field: in.field, id: in.id, typ: in.typ, kind: in.kind, key: func(p []string) *K {
		k := in.key(p)
		return &k
	}}
}

// userKey is a user's key: the organization it belongs to and its id.
type userKey struct{ org, id string }

// orderKey is an order's key: the customer who placed it and its id.
type orderKey struct{ customer, id string }

func firstPart(parts []string) string { return parts[0] }

// decode decodes the ID, checks it against the caller's scope and returns its key. An ID that
// does not carry its tenant (auth.AfterRead: a ticket's, for an org role) is read and checked as
// node(id:) checks it.
func (in inputID[K]) decode(ctx context.Context) (K, error) {
	var zero K
	if in.absent {
		return zero, nil
	}
	parts, d, err := decodeVisible(ctx, in.field, in.id, in.typ, in.kind)
	if err == nil && d == auth.AfterRead {
		err = scopeAfterRead(ctx, in.typ, parts)
	}
	if err != nil {
		return zero, err
	}
	return in.key(parts), nil
}

// scopeAfterRead finishes the scope check of an ID whose parts do not tell its tenant: the object
// is read through the loaders (one BatchGetItem more than the write itself, for an org role's
// ticket: its ID does not carry its organization, which never changes) and checked by its registry
// row's scopeRead (ticketScope), as node(id:) does. A type without one is refused (deny by default).
func scopeAfterRead(ctx context.Context, typ string, parts []string) error {
	t, ok := nodeTypes[typ]
	if !ok || t.scopeRead == nil {
		return auth.Hidden(typ)
	}
	_, _, err := fetchNode(ctx, t, parts, 0)
	return err
}

// given calls write with the key of a's ID once it is decoded and inside the caller's scope; if
// it is not, the answer is a's error and nothing is written.
func given[A, M any](ctx context.Context, a inputID[A], write func(A) (M, error)) (M, error) {
	ka, err := a.decode(ctx)
	if err != nil {
		var zero M
		return zero, err
	}
	return write(ka)
}

// given2 is given for an input with two IDs, checked in order.
func given2[A, B, M any](ctx context.Context, a inputID[A], b inputID[B], write func(A, B) (M, error)) (M, error) {
	return given(ctx, a, func(ka A) (M, error) {
		return given(ctx, b, func(kb B) (M, error) { return write(ka, kb) })
	})
}

// given3 is given for an input with three IDs, checked in order.
func given3[A, B, C, M any](ctx context.Context, a inputID[A], b inputID[B], c inputID[C], write func(A, B, C) (M, error)) (M, error) {
	return given(ctx, a, func(ka A) (M, error) {
		return given2(ctx, b, c, func(kb B, kc C) (M, error) { return write(ka, kb, kc) })
	})
}

// saver finishes a mutation once the repository has written. Its methods take the repository
// call's results as they come (the entity, what else was written with it, the error).
type saver[E repository.Entity, M any] struct {
	ctx  context.Context
	wrap func(E) M
}

// saved is the saver of a write of entities E, wrapped by wrap (userNode, …).
func saved[E repository.Entity, M any](ctx context.Context, wrap func(E) M) saver[E, M] {
	return saver[E, M]{ctx: ctx, wrap: wrap}
}

// entity finishes a write of one entity.
func (s saver[E, M]) entity(e E, err error) (M, error) { return s.keep(e, nil, err) }

// withRelation finishes a write of an employee and the relation item written with it.
func (s saver[E, M]) withRelation(e E, rel *repository.Relation, err error) (M, error) {
	return s.keep(e, returned(rel), err)
}

// withRelations finishes a write of an employee and the relation items written with it.
func (s saver[E, M]) withRelations(e E, rels []*repository.Relation, err error) (M, error) {
	return s.keep(e, returned(rels...), err)
}

// withItems finishes a write of an order and its items.
func (s saver[E, M]) withItems(o E, items []*repository.OrderItem, err error) (M, error) {
	return s.keep(o, returned(items...), err)
}

// keep hands e and also to the request's loaders (loaders.Remember: they replace what the loaders
// held, also an earlier field's read of the same operation, and cached lists are dropped) and
// returns e wrapped; on err it returns err and hands over nothing.
func (s saver[E, M]) keep(e E, also []repository.Entity, err error) (M, error) {
	if err != nil {
		var zero M
		return zero, err
	}
	loaders.For(s.ctx).Remember(s.ctx, append([]repository.Entity{e}, also...)...)
	return s.wrap(e), nil
}

// returned lists what a write returned next to its entity, leaving nil items out: a nil pointer
// in an interface is not nil, and Remember would fail a committed write on it.
func returned[T any, P interface {
	*T
	repository.Entity
}](items ...P) []repository.Entity {
	out := make([]repository.Entity, 0, len(items))
	for _, p := range items {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}
