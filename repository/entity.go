package repository

import (
	"errors"
	"fmt"

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
// _model.go file.
type entity[T any, PT interface {
	*T
	Entity
}] struct {
	// name is the item's `type` attribute.
	name string
	// key is the item's primary key; the type's Key method returns it.
	key func(PT) Key
	// indexes are the item's secondary index keys. shards is N of the write-sharded order status
	// index, the one key that depends on the table's configuration (see sharded).
	indexes func(v PT, shards int) []indexKey
	// sharded says that indexes needs shards: such items are encoded with encodeSharded.
	sharded bool
	// fix adjusts an encoded item where the codec's default is not what the table needs (nil:
	// nothing to adjust).
	fix func(v PT, item map[string]types.AttributeValue)
	// examples are values whose key fields hold placeholders such as "<orgId>"; the key table
	// shows their keys. More than one when the key's shape depends on a field (a relation's type).
	examples func() []PT
	// placeholders replace parts of the rendered example keys that the examples cannot spell as
	// placeholders (a formatted time, a hashed shard number).
	placeholders map[string]string
}

// indexKey is an item's key on one secondary index.
type indexKey struct{ index, pk, sk string }

// encode marshals v into its item: its attributes, its primary and index keys and its type.
func (d entity[T, PT]) Encode(v PT) (map[string]types.AttributeValue, error) {
	if d.sharded {
		return nil, apperr.Internal("encode "+d.name, errors.New("its index keys need the shard count: use encodeSharded"))
	}
	return d.encodeSharded(v, 0)
}

// encodeSharded is encode for a type whose index keys depend on the number of shards of the
// order status index.
func (d entity[T, PT]) encodeSharded(v PT, shards int) (map[string]types.AttributeValue, error) {
	if d.sharded && shards < 1 {
		return nil, apperr.Internal("encode "+d.name, fmt.Errorf("%d shards", shards))
	}
	item, err := attributevalue.MarshalMap(v)
	if err != nil {
		return nil, apperr.Internal("encode "+d.name, err)
	}
	k := d.key(v)
	item[AttrPK], item[AttrSK], item[AttrType] = StringValue(k.PK), StringValue(k.SK), StringValue(d.name)
	if d.indexes != nil {
		for _, ix := range d.indexes(v, shards) {
			item[ix.index+AttrPK], item[ix.index+AttrSK] = StringValue(ix.pk), StringValue(ix.sk)
		}
	}
	if d.fix != nil {
		d.fix(v, item)
	}
	return item, nil
}

// itemDecoder decodes every item. attributevalue.UnmarshalMap would build a new Decoder per item;
// a Decoder only holds its options, so one serves all goroutines.
var itemDecoder = attributevalue.NewDecoder()

// decode unmarshals an item of this type.
func (d entity[T, PT]) decode(item map[string]types.AttributeValue) (Entity, error) {
	var v T
	if err := itemDecoder.Decode(&types.AttributeValueMemberM{Value: item}, &v); err != nil {
		return nil, apperr.Internal("decode "+d.name, err)
	}
	return PT(&v), nil
}

func (d entity[T, PT]) typeName() string { return d.name }

// definition is what the registry needs of an entity definition, whatever its Go type.
type definition interface {
	typeName() string
	decode(map[string]types.AttributeValue) (Entity, error)
}

// definitions are every entity definition, each registered by define where it is declared,
// beside its entity; the decoder registry and the key table come from them.
var definitions []definition

// define registers d among the definitions and returns it.
func define[T any, PT interface {
	*T
	Entity
}](d entity[T, PT]) entity[T, PT] {
	definitions = append(definitions, d)
	return d
}

// decoders maps the `type` attribute of an item to the definition that decodes it. It is built
// in init, after every definition has registered itself (package variables of all files are
// initialized before any init function runs).
var Decoders map[string]definition

func init() { Decoders = decoderRegistry(definitions) }

func decoderRegistry(defs []definition) map[string]definition {
	m := make(map[string]definition, len(defs))
	for _, d := range defs {
		if _, dup := m[d.typeName()]; dup {
			panic("repository: two entity definitions of type " + d.typeName())
		}
		m[d.typeName()] = d
	}
	return m
}

// decodeEntity decodes an item into the entity its `type` attribute names.
func DecodeEntity(item map[string]types.AttributeValue) (Entity, error) {
	t := StringAttr(item, AttrType)
	d, ok := Decoders[t]
	if !ok {
		return nil, apperr.Internal("decode item", fmt.Errorf("unknown item type %q", t))
	}
	return d.decode(item)
}

// decodeAs decodes an item that must be a T.
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
