package stream

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"singletable/repository"
)

// ChangeKind says what a write did to an item.
type ChangeKind int

// The kinds of change, from the stream record's event name.
const (
	// ChangeCreated: the item did not exist (INSERT); New is set, Old is nil.
	ChangeCreated ChangeKind = iota + 1
	// ChangeUpdated: the item existed and was overwritten or updated (MODIFY); both are set.
	ChangeUpdated
	// ChangeRemoved: the item was deleted (REMOVE); Old is set, New is nil.
	ChangeRemoved
)

func (k ChangeKind) String() string {
	switch k {
	case ChangeCreated:
		return "CREATED"
	case ChangeUpdated:
		return "UPDATED"
	case ChangeRemoved:
		return "REMOVED"
	}
	return fmt.Sprintf("ChangeKind(%d)", int(k))
}

// Change is one write to an entity's item, as the table's stream recorded it: whoever made it
// (this API, another service, a migration, the console). New and Old are decoded by the same
// entity definitions as reads, so a subscriber sees the same Go values a query would.
type Change struct {
	Kind ChangeKind
	// New is the entity after the write, Old before it; nil where absent (see ChangeKind).
	New, Old repository.Entity
	// Key is the item's primary key.
	Key repository.Key
	// Sequence is the record's sequence number in its shard (increasing in write order), and
	// Shard that shard's id: together they name the record, so that a copy of a change that
	// reached a process twice (a fleet's handover between readers) is recognised.
	Sequence, Shard string
	// At is when DynamoDB recorded the write (ApproximateCreationDateTime: whole seconds on AWS,
	// whole minutes on DynamoDB Local).
	At time.Time
	// Position is the change's place in the change log (delta sync): the reader numbers the
	// changes it appends 1, 2, 3, ... across all shards, in the order it appends them, which is
	// the order it hands them on. A change the log does not keep (no subscription names its
	// type) has the position of the change before it. Its cursor carries it.
	Position uint64
	// Logged is when the stream's reader appended the change to the change log (delta sync):
	// the time its cursor carries, from which it expires.
	Logged time.Time
	// newItem and oldItem are the images as items: what EncodeChange sends to other processes,
	// which decode them with the same definitions.
	newItem, oldItem map[string]types.AttributeValue
}

// Entity returns New, or Old for a removal: the entity the change is about.
func (c Change) Entity() repository.Entity {
	if c.New != nil {
		return c.New
	}
	return c.Old
}

var changeKinds = map[stypes.OperationType]ChangeKind{
	stypes.OperationTypeInsert: ChangeCreated,
	stypes.OperationTypeModify: ChangeUpdated,
	stypes.OperationTypeRemove: ChangeRemoved,
}

// decodeRecord turns a stream record into a Change. ok is false, with no error, for a record
// that is not about an entity (an item whose `type` no definition has: a uniqueness guard, the
// seed marker, an item another writer put there) or that carries no image; err is set when an
// entity's image does not decode (a foreign writer stored a malformed item).
func decodeRecord(rec stypes.Record) (c Change, ok bool, err error) {
	sr := rec.Dynamodb
	kind, known := changeKinds[rec.EventName]
	if sr == nil || !known {
		return Change{}, false, nil
	}
	c = Change{Kind: kind, Sequence: aws.ToString(sr.SequenceNumber), At: aws.ToTime(sr.ApproximateCreationDateTime)}
	keys, err := fromStreamImage(sr.Keys)
	if err != nil {
		return Change{}, false, fmt.Errorf("record %s: keys: %w", c.Sequence, err)
	}
	c.Key = repository.Key{PK: repository.StringAttr(keys, repository.AttrPK), SK: repository.StringAttr(keys, repository.AttrSK)}
	if c.New, c.newItem, err = decodeImage(sr.NewImage); err != nil {
		return Change{}, false, fmt.Errorf("record %s (%s %s): new image: %w", c.Sequence, c.Key.PK, c.Key.SK, err)
	}
	if c.Old, c.oldItem, err = decodeImage(sr.OldImage); err != nil {
		return Change{}, false, fmt.Errorf("record %s (%s %s): old image: %w", c.Sequence, c.Key.PK, c.Key.SK, err)
	}
	c = moves(c, sr.NewImage)
	return c, c.New != nil || c.Old != nil, nil
}

// moves reads a migration's move of an item to its key (moveItem) as one change of the object:
// the item put under its key (movedFrom set) is UPDATED, not CREATED, and an item removed from a
// key its entity no longer has (an earlier version's key: the move's other half) is no change at
// all: the object lives on under its key, which is the one its subscribers know it by.
func moves(c Change, newImage map[string]stypes.AttributeValue) Change {
	switch {
	case c.Kind == ChangeCreated && newImage[repository.AttrMovedFrom] != nil:
		c.Kind = ChangeUpdated
	case c.Kind == ChangeRemoved && c.Old != nil && c.Old.Key() != c.Key:
		c.Old, c.oldItem = nil, nil
	}
	return c
}

// decodeImage decodes a stream image into its entity, and returns it as an item too: nil for no
// image or an item that is not an entity.
func decodeImage(img map[string]stypes.AttributeValue) (repository.Entity, map[string]types.AttributeValue, error) {
	if len(img) == 0 {
		return nil, nil, nil
	}
	item, err := fromStreamImage(img)
	if err != nil {
		return nil, nil, err
	}
	return decodeEntityItem(item)
}

// decodeEntityItem decodes an item that may be an entity: nil, nil for one that is not.
func decodeEntityItem(item map[string]types.AttributeValue) (repository.Entity, map[string]types.AttributeValue, error) {
	if !repository.IsEntityType(repository.StringAttr(item, repository.AttrType)) || len(item) == 0 {
		return nil, nil, nil
	}
	e, err := repository.DecodeEntity(item)
	if err != nil {
		return nil, nil, err
	}
	return e, item, nil
}

// fromStreamImage converts a stream image into the DynamoDB client's attribute values. The two
// SDK modules declare the same DynamoDB attribute value union as two Go types; this and
// fromStreamValue are the one place that crosses from one to the other.
func fromStreamImage(img map[string]stypes.AttributeValue) (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, len(img))
	for name, v := range img {
		av, err := fromStreamValue(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		item[name] = av
	}
	return item, nil
}

// fromStreamValue converts one attribute value, recursively for maps and lists. The byte slices
// are shared, not copied: nothing changes a decoded record.
func fromStreamValue(v stypes.AttributeValue) (types.AttributeValue, error) {
	switch v := v.(type) {
	case *stypes.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: v.Value}, nil
	case *stypes.AttributeValueMemberN:
		return &types.AttributeValueMemberN{Value: v.Value}, nil
	case *stypes.AttributeValueMemberB:
		return &types.AttributeValueMemberB{Value: v.Value}, nil
	case *stypes.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: v.Value}, nil
	case *stypes.AttributeValueMemberNULL:
		return &types.AttributeValueMemberNULL{Value: v.Value}, nil
	case *stypes.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: v.Value}, nil
	case *stypes.AttributeValueMemberNS:
		return &types.AttributeValueMemberNS{Value: v.Value}, nil
	case *stypes.AttributeValueMemberBS:
		return &types.AttributeValueMemberBS{Value: v.Value}, nil
	case *stypes.AttributeValueMemberM:
		m, err := fromStreamImage(v.Value)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	case *stypes.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			av, err := fromStreamValue(e)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			l[i] = av
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	}
	return nil, fmt.Errorf("unsupported attribute value %T", v)
}
