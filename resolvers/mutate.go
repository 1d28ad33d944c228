package resolvers

import (
	"context"

	"singletable/graph/model"
	"singletable/loaders"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/hr"
)

// Every mutation resolver is one return statement made of the two halves of this file:
//
//	return given(ctx, idOf(model.Organizations, "organizationId", input.OrganizationID), func(org string) (*model.User, error) {
//		return saved(ctx, model.Users.Wrap).entity(r.Repo.CreateUser(ctx, org, input.Name, input.Email))
//	})
//
// given is the way in. It decodes each global ID of the input and checks it against the caller's
// scope with the ID's node descriptor (model.NodeType.Input: from the ID, and for an ID that does
// not carry its tenant after the read), the way every other ID entering the graph is checked, and
// calls the write with the IDs' references only
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

// inputID is a global ID given in a field of a mutation's input, with the node descriptor that
// turns it into the reference R a write takes (an id, a user's organization and id, a
// LocationRef, …).
type inputID[R any] struct {
	field string // the input field, named by BAD_USER_INPUT
	id    string
	// kind names the object in the NOT_FOUND of an ID outside the caller's scope; "" for the
	// descriptor's Kind.
	kind string
	// input is the descriptor's Input (model.NodeType.Input).
	input func(ctx context.Context, r model.KeyReader, field, id, kind string) (R, error)
	// absent marks an optional field left out: nothing to decode or check, the key is R's zero.
	absent bool
}

// idOf is the ID given in input field field, an ID of d's type.
func idOf[E repository.Entity, M model.Node, R any](d model.NodeType[E, M, R], field, id string) inputID[R] {
	return inputID[R]{field: field, id: id, input: d.Input}
}

// named is in with its object named kind in a NOT_FOUND (a User ID given as a "reporter").
func (in inputID[R]) named(kind string) inputID[R] {
	in.kind = kind
	return in
}

// optional is the ID of an optional input field, an ID of d's type when given: its reference is
// nil when the field is left out.
func optional[E repository.Entity, M model.Node, R any](d model.NodeType[E, M, R], field string, id *string) inputID[*R] {
	if id == nil {
		return inputID[*R]{field: field, absent: true}
	}
	return inputID[*R]{field: field, id: *id, input: func(ctx context.Context, r model.KeyReader, field, id, kind string) (*R, error) {
		ref, err := d.Input(ctx, r, field, id, kind)
		if err != nil {
			return nil, err
		}
		return &ref, nil
	}}
}

// decode decodes the ID, checks it against the caller's scope and returns its reference. An ID
// that does not carry its tenant (a ticket's, for an org role) is read through the loaders and
// checked by the item: one BatchGetItem more than the write itself.
func (in inputID[R]) decode(ctx context.Context) (R, error) {
	if in.absent {
		var zero R
		return zero, nil
	}
	return in.input(ctx, loaders.For(ctx), in.field, in.id, in.kind)
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

// saved is the saver of a write of entities E, wrapped by wrap (a descriptor's: model.Users.Wrap, …).
func saved[E repository.Entity, M any](ctx context.Context, wrap func(E) M) saver[E, M] {
	return saver[E, M]{ctx: ctx, wrap: wrap}
}

// entity finishes a write of one entity.
func (s saver[E, M]) entity(e E, err error) (M, error) { return s.keep(e, nil, err) }

// withRelation finishes a write of an employee and the relation item written with it.
func (s saver[E, M]) withRelation(e E, rel *hr.Relation, err error) (M, error) {
	return s.keep(e, returned(rel), err)
}

// withRelations finishes a write of an employee and the relation items written with it.
func (s saver[E, M]) withRelations(e E, rels []*hr.Relation, err error) (M, error) {
	return s.keep(e, returned(rels...), err)
}

// withItems finishes a write of an order and its items.
func (s saver[E, M]) withItems(o E, items []*commerce.OrderItem, err error) (M, error) {
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

// deleted finishes a delete: the payload names the removed object by the ID it was asked for with
// (the one the client's cache holds), or nothing on err.
func deleted(id string, err error) (*model.DeletePayload, error) {
	if err != nil {
		return nil, err
	}
	return &model.DeletePayload{DeletedID: id}, nil
}
