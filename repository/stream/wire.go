package stream

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
)

// The wire form of a Change, for a fleet of instances that shares one reader of the stream: the
// reader sends each change to the others (EncodeChange), which decode it (DecodeChange) with the
// same entity definitions as the reader's own decoding of the record, so that every instance
// hands its subscribers the same values. The images travel as items, not as Go values, so an
// instance decodes exactly what the table held.

// wireChange is what EncodeChange writes (encoding/gob, whose decoder refuses malformed input with
// an error and needs the attribute value kinds registered below).
type wireChange struct {
	Kind                    ChangeKind
	PK, SK, Sequence, Shard string
	Position                uint64
	At, Logged              time.Time
	New, Old                map[string]types.AttributeValue
}

func init() {
	for _, v := range []types.AttributeValue{
		&types.AttributeValueMemberS{}, &types.AttributeValueMemberN{}, &types.AttributeValueMemberB{},
		&types.AttributeValueMemberBOOL{}, &types.AttributeValueMemberNULL{}, &types.AttributeValueMemberSS{},
		&types.AttributeValueMemberNS{}, &types.AttributeValueMemberBS{}, &types.AttributeValueMemberM{},
		&types.AttributeValueMemberL{},
	} {
		gob.Register(v)
	}
}

// ErrNotWireChange is DecodeChange's error for bytes that are not a change EncodeChange wrote.
var ErrNotWireChange = errors.New("not an encoded change")

// EncodeChange encodes a change the stream reader delivered, for DecodeChange in another process.
func EncodeChange(c Change) ([]byte, error) {
	if c.newItem == nil && c.oldItem == nil {
		return nil, fmt.Errorf("%w: the change %s carries no image", ErrNotWireChange, c.Sequence)
	}
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(wireChange{Kind: c.Kind, PK: c.Key.PK, SK: c.Key.SK, Sequence: c.Sequence,
		Shard: c.Shard, Position: c.Position, At: c.At, Logged: c.Logged, New: c.newItem, Old: c.oldItem})
	return buf.Bytes(), err
}

// DecodeChange decodes what EncodeChange wrote. Anything else is an error, never a panic.
func DecodeChange(b []byte) (c Change, err error) {
	defer func() {
		if p := recover(); p != nil { // gob's decoder reports malformed input as errors; be sure
			err = fmt.Errorf("%w: %v", ErrNotWireChange, p)
		}
	}()
	var w wireChange
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&w); err != nil {
		return Change{}, fmt.Errorf("%w: %v", ErrNotWireChange, err)
	}
	if w.Kind < ChangeCreated || w.Kind > ChangeRemoved || w.Sequence == "" || w.Shard == "" {
		return Change{}, fmt.Errorf("%w: kind %d, sequence %q, shard %q", ErrNotWireChange, w.Kind, w.Sequence, w.Shard)
	}
	c = Change{Kind: w.Kind, Key: repository.Key{PK: w.PK, SK: w.SK}, Sequence: w.Sequence, Shard: w.Shard, Position: w.Position, At: w.At, Logged: w.Logged}
	if c.New, c.newItem, err = decodeEntityItem(w.New); err != nil {
		return Change{}, err
	}
	if c.Old, c.oldItem, err = decodeEntityItem(w.Old); err != nil {
		return Change{}, err
	}
	if c.New == nil && c.Old == nil {
		return Change{}, fmt.Errorf("%w: no entity in change %s", ErrNotWireChange, c.Sequence)
	}
	return c, nil
}
