package model

import (
	"context"

	"singletable/auth"
	"singletable/globalid"
	"singletable/repository"
)

// A NodeType describes one type of object with a global ID (a schema type implementing Node).
// Everything the API does with such an object by its ID comes from this one value: the global ID
// (GetID encodes PartsOf; Decode checks the type and the number of parts), the table key of the
// object an ID names (Key), the tenant it belongs to (Scope: every ID carries its tenant, so a
// scope check never reads, and a foreign object costs exactly what a missing one does), the
// GraphQL object that wraps the stored entity (Wrap), the typed reference a mutation's
// input ID becomes (Ref, Input) and the typed lookup through the request's loaders (Load), whose
// NOT_FOUND names the object by Kind. The registry (Nodes) lists every descriptor by Name, so
// node(id:) and nodes(ids:) need no switch over types.
//
// Adding a node type is one descriptor here plus its entity definition (repository/<domain>/model.go);
// a test fails for a schema Node type without a descriptor or with a part unset. A type whose IDs
// change shape (an ID gaining a part, old IDs still accepted) changes only its descriptor: Decode
// is the one place that checks the parts, and Complete turns the old shape into today's.
//
// E is the stored entity, M its GraphQL object, R the typed reference the ID's parts spell (an
// id, a user's organization and id, a location's whole key).
type NodeType[E repository.Entity, M Node, R any] struct {
	// Name is the schema type, and the type its global IDs name.
	Name string
	// Kind names the object in NOT_FOUND ("user not found").
	Kind string
	// Parts names the ID's key parts, in order; an ID with another number of parts is malformed.
	Parts []string
	// PartsOf are an entity's ID parts, in the order of Parts.
	PartsOf func(E) []string
	// Ref is the typed reference the parts spell.
	Ref func(parts []string) R
	// Key is the table key of the object ref names.
	Key func(ref R) (repository.Key, error)
	// Scope is the tenant of the object ref names, from the ID alone.
	Scope func(ref R) auth.Scope
	// Wrap turns the stored entity into its GraphQL object.
	Wrap func(E) M
	// Stub is an entity of the object ref names holding its ID's parts alone: what a to-one field
	// answers, unread, when the operation asks nothing of the object but its ID (Named).
	Stub func(ref R) E

	// LegacyParts, when set, are the parts of an older, shorter ID the type still accepts (IDs
	// handed out before its ID gained a part), and Complete turns such parts into today's, for
	// the caller of ctx (reading through r where it must). Nil for a type whose IDs never changed.
	LegacyParts []string
	Complete    func(ctx context.Context, r KeyReader, parts []string) ([]string, error)
}

// KeyReader looks entities up by key through the request's loaders (batched with the other
// lookups of their level); kind names a missing one in its NOT_FOUND. loaders.Loaders is one.
type KeyReader interface {
	Lookup(ctx context.Context, key repository.Key, kind string) (repository.Entity, error)
}

// ID is the global ID of e.
func (d NodeType[E, M, R]) ID(e E) string { return globalid.Encode(d.Name, d.PartsOf(e)...) }

// IDOf is the global ID an object of this type with the given parts has (tests, tools).
func (d NodeType[E, M, R]) IDOf(parts ...string) string { return globalid.Encode(d.Name, parts...) }

// Decode decodes a global ID given in field that must name an object of this type: BAD_USER_INPUT
// naming field for a malformed ID, an ID of another type or with another number of parts.
func (d NodeType[E, M, R]) Decode(field, id string) ([]string, error) {
	typ, parts, err := globalid.Decode(field, id)
	if err != nil {
		return nil, err
	}
	if typ != d.Name {
		return nil, globalid.WrongType(field, d.Name)
	}
	return d.checkParts(field, parts)
}

// checkParts checks a decoded ID's parts against the descriptor: today's, or a legacy shape.
func (d NodeType[E, M, R]) checkParts(field string, parts []string) ([]string, error) {
	if len(parts) != len(d.Parts) && (d.Complete == nil || len(parts) != len(d.LegacyParts)) {
		return nil, globalid.Invalid(field)
	}
	return parts, nil
}

// CompleteParts turns the parts of a legacy ID into today's (see LegacyParts); today's parts are
// returned as they are.
func (d NodeType[E, M, R]) CompleteParts(ctx context.Context, r KeyReader, parts []string) ([]string, error) {
	if len(parts) == len(d.Parts) || d.Complete == nil {
		return parts, nil
	}
	return d.Complete(ctx, r, parts)
}

// wrapEntity is e's GraphQL object; ok is false for an entity of another type (a key of this type
// cannot hold one).
func (d NodeType[E, M, R]) wrapEntity(e repository.Entity) (M, bool) {
	t, ok := e.(E)
	if !ok {
		var zero M
		return zero, false
	}
	return d.Wrap(t), true
}

// Get looks up the stored entity ref names through r: NOT_FOUND (by Kind) when it is missing.
func (d NodeType[E, M, R]) Get(ctx context.Context, r KeyReader, ref R) (E, error) {
	var zero E
	k, err := d.Key(ref)
	if err != nil {
		return zero, err
	}
	e, err := r.Lookup(ctx, k, d.Kind)
	if err != nil {
		return zero, err
	}
	t, ok := e.(E)
	if !ok {
		return zero, auth.Hidden(d.Kind)
	}
	return t, nil
}

// Load is Get, wrapped as the GraphQL object.
func (d NodeType[E, M, R]) Load(ctx context.Context, r KeyReader, ref R) (M, error) {
	e, err := d.Get(ctx, r, ref)
	if err != nil {
		var zero M
		return zero, err
	}
	return d.Wrap(e), nil
}

// Named is the object ref names as far as its ID goes, without a read: for a to-one field whose
// parent's item holds ref and whose selection asks for nothing but the ID (planner's IDOnly).
// Removals leave no reference to a removed object behind, so the object exists; a reference that
// makes no key is the error Load would answer.
func (d NodeType[E, M, R]) Named(ref R) (M, error) {
	if _, err := d.Key(ref); err != nil {
		var zero M
		return zero, err
	}
	return d.Wrap(d.Stub(ref)), nil
}

// Visible decides, before any read, whether the caller may see the object ref names: Allow, or
// the NOT_FOUND a missing object gets (named kind, or Kind when kind is "").
func (d NodeType[E, M, R]) Visible(ctx context.Context, ref R, kind string) error {
	if auth.Caller(ctx).Sees(d.Scope(ref)) != auth.Allow {
		return auth.Hidden(orKind(kind, d.Kind))
	}
	return nil
}

// Input decodes a global ID given in a mutation input's field, completes a legacy one, checks it
// against the caller's scope (from the ID: nothing is read) and returns the reference a write
// takes. kind names the object in the NOT_FOUND of an ID outside the scope ("reporter"; "" for
// Kind): exactly the error a missing object gets.
func (d NodeType[E, M, R]) Input(ctx context.Context, r KeyReader, field, id, kind string) (R, error) {
	var zero R
	parts, err := d.Decode(field, id)
	if err == nil {
		parts, err = d.CompleteParts(ctx, r, parts)
	}
	if err != nil {
		return zero, err
	}
	ref := d.Ref(parts)
	if err := d.Visible(ctx, ref, kind); err != nil {
		return zero, err
	}
	return ref, nil
}

func orKind(kind, fallback string) string {
	if kind == "" {
		return fallback
	}
	return kind
}

// AnyNode is a NodeType with its type parameters erased: what the registry holds for node(id:)
// and nodes(ids:), which learn the type from the ID.
type AnyNode interface {
	// TypeName is the descriptor's Name, KindName its Kind.
	TypeName() string
	KindName() string
	// DecodeAny is Decode (a global ID that must be of this type).
	DecodeAny(field, id string) ([]string, error)
	// KeyOf is the table key the parts name; ScopeOf their tenant, from the ID alone.
	KeyOf(parts []string) (repository.Key, error)
	ScopeOf(parts []string) auth.Scope
	// WrapAny is e's GraphQL object; ok is false for an entity of another type.
	WrapAny(e repository.Entity) (Node, bool)
	// PartsOfAny are e's ID parts; nil for an entity of another type.
	PartsOfAny(e repository.Entity) []string
	// CompleteParts turns a legacy ID's parts into today's (see NodeType.LegacyParts).
	CompleteParts(ctx context.Context, r KeyReader, parts []string) ([]string, error)
	// EntityScope is e's tenant (nil scope, seen by nobody, for an entity of another type): what
	// an object read without an ID (a stream's change, say) is scoped by.
	EntityScope(e repository.Entity) auth.Scope
	// checkParts checks a decoded ID's parts (DecodeNode).
	checkParts(field string, parts []string) ([]string, error)
}

func (d NodeType[E, M, R]) TypeName() string { return d.Name }
func (d NodeType[E, M, R]) KindName() string { return d.Kind }

func (d NodeType[E, M, R]) DecodeAny(field, id string) ([]string, error) { return d.Decode(field, id) }

func (d NodeType[E, M, R]) KeyOf(parts []string) (repository.Key, error) { return d.Key(d.Ref(parts)) }
func (d NodeType[E, M, R]) ScopeOf(parts []string) auth.Scope            { return d.Scope(d.Ref(parts)) }

func (d NodeType[E, M, R]) WrapAny(e repository.Entity) (Node, bool) {
	m, ok := d.wrapEntity(e)
	if !ok {
		return nil, false
	}
	return m, true
}

func (d NodeType[E, M, R]) EntityScope(e repository.Entity) auth.Scope {
	if t, ok := e.(E); ok {
		return d.Scope(d.Ref(d.PartsOf(t)))
	}
	return auth.Scope{}
}

func (d NodeType[E, M, R]) PartsOfAny(e repository.Entity) []string {
	if t, ok := e.(E); ok {
		return d.PartsOf(t)
	}
	return nil
}

// DecodeNode decodes a global ID of any node type (node(id:), nodes(ids:)): its descriptor and
// parts, or BAD_USER_INPUT naming field for a malformed ID, an unknown type or a wrong number of
// parts.
func DecodeNode(field, id string) (AnyNode, []string, error) {
	typ, parts, err := globalid.Decode(field, id)
	if err != nil {
		return nil, nil, err
	}
	d, ok := nodeByName[typ]
	if !ok {
		return nil, nil, globalid.Invalid(field)
	}
	if parts, err = d.checkParts(field, parts); err != nil {
		return nil, nil, err
	}
	return d, parts, nil
}
