package repository

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// Entity is anything stored as an item of the table that can be looked up by key.
type Entity interface {
	// Key is the primary key of the entity's item.
	Key() Key
}

// entity is the one definition of an item type, in the spirit of ElectroDB's entities: its
// `type` attribute, its primary key, its secondary index keys and its codec, all in one value.
// Everything else about the type is derived from it: the item encoder (encode), the decoder
// registry (decoders) and the key table in docs/data-model.md (rendered by a golden test from
// the examples). A new item type is one more definition, declared with define in its domain's
// model.go file (repository/<domain>/model.go).
type EntityDef[T any, PT interface {
	*T
	Entity
}] struct {
	// Name is the item's `type` attribute.
	Name string
	// Key is the item's primary key; the type's Key method returns it.
	Key func(PT) Key
	// Indexes are the item's secondary index keys. shards is N of the write-sharded order status
	// index, the one key that depends on the table's configuration (see sharded).
	Indexes func(v PT, shards int) []IndexKey
	// Sharded says that indexes needs shards: such items are encoded with encodeSharded.
	Sharded bool
	// Fix adjusts an encoded item where the codec's default is not what the table needs (nil:
	// nothing to adjust).
	Fix func(v PT, item map[string]types.AttributeValue)
	// Examples are values whose key fields hold placeholders such as "<orgId>"; the key table
	// shows their keys. More than one when the key's shape depends on a field (a relation's type).
	Examples func() []PT
	// Placeholders replace parts of the rendered example keys that the examples cannot spell as
	// placeholders (a formatted time, a hashed shard number).
	Placeholders map[string]string
}

// IndexKey is an item's key on one secondary index.
type IndexKey struct{ Index, PK, SK string }

// Encode marshals v into its item: its attributes, its primary and index keys and its type.
func (d EntityDef[T, PT]) Encode(v PT) (map[string]types.AttributeValue, error) {
	if d.Sharded {
		return nil, apperr.Internal("encode "+d.Name, errors.New("its index keys need the shard count: use encodeSharded"))
	}
	return d.EncodeSharded(v, 0)
}

// EncodeSharded is encode for a type whose index keys depend on the number of shards of the
// order status index.
func (d EntityDef[T, PT]) EncodeSharded(v PT, shards int) (map[string]types.AttributeValue, error) {
	if d.Sharded && shards < 1 {
		return nil, apperr.Internal("encode "+d.Name, fmt.Errorf("%d shards", shards))
	}
	item, err := attributevalue.MarshalMap(v)
	if err != nil {
		return nil, apperr.Internal("encode "+d.Name, err)
	}
	k := d.Key(v)
	item[AttrPK], item[AttrSK], item[AttrType] = StringValue(k.PK), StringValue(k.SK), StringValue(d.Name)
	if d.Indexes != nil {
		for _, ix := range d.Indexes(v, shards) {
			item[ix.Index+AttrPK], item[ix.Index+AttrSK] = StringValue(ix.PK), StringValue(ix.SK)
		}
	}
	if d.Fix != nil {
		d.Fix(v, item)
	}
	return item, nil
}

// itemDecoder decodes every item. attributevalue.UnmarshalMap would build a new Decoder per item;
// a Decoder only holds its options, so one serves all goroutines.
var itemDecoder = attributevalue.NewDecoder()

// decode unmarshals an item of this type.
func (d EntityDef[T, PT]) decode(item map[string]types.AttributeValue) (Entity, error) {
	var v T
	if err := itemDecoder.Decode(&types.AttributeValueMemberM{Value: item}, &v); err != nil {
		return nil, apperr.Internal("decode "+d.Name, err)
	}
	return PT(&v), nil
}

func (d EntityDef[T, PT]) typeName() string { return d.Name }

// definition is what the registry needs of an entity definition, whatever its Go type.
type definition interface {
	typeName() string
	decode(map[string]types.AttributeValue) (Entity, error)
}

// definitions are every entity definition, each registered by define where it is declared,
// beside its entity; the decoder registry and the key table come from them.
var definitions []definition

// Define registers d among the definitions and the decoders, and returns it. The domains define
// their item types in package variables, so every definition is registered before anything
// decodes an item; two of one type are a programming error.
func Define[T any, PT interface {
	*T
	Entity
}](d EntityDef[T, PT]) EntityDef[T, PT] {
	if _, dup := decoders[d.typeName()]; dup {
		panic("repository: two entity definitions of type " + d.typeName())
	}
	definitions = append(definitions, d)
	decoders[d.typeName()] = d
	return d
}

// decoders maps the `type` attribute of an item to the definition that decodes it.
var decoders = map[string]definition{}

// IsEntityType reports whether items of the `type` name decode into an entity (a definition
// declares it), rather than being a guard, a marker or a log item.
func IsEntityType(name string) bool {
	_, ok := decoders[name]
	return ok
}

// DecodeEntity decodes an item into the entity its `type` attribute names: what the reads do, and
// what a tool that reads the table with SDK calls of its own uses (the benchmark's floor).
func DecodeEntity(item map[string]types.AttributeValue) (Entity, error) {
	t := StringAttr(item, AttrType)
	d, ok := decoders[t]
	if !ok {
		return nil, apperr.Internal("decode item", fmt.Errorf("unknown item type %q", t))
	}
	return d.decode(item)
}

// DecodeAs decodes an item that must be a T.
func DecodeAs[T Entity](item map[string]types.AttributeValue) (T, error) {
	var zero T
	e, err := DecodeEntity(item)
	if err != nil {
		return zero, err
	}
	v, ok := e.(T)
	if !ok {
		return zero, apperr.Internal("decode item", fmt.Errorf("item is a %T, want %T", e, zero))
	}
	return v, nil
}

func StringValue(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func NumberValue(v int) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.Itoa(v)}
}
