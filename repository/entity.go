package repository

import (
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

// decoders maps the `type` attribute of an item to the function that decodes it.
var decoders = map[string]func(map[string]types.AttributeValue) (Entity, error){
	typeOrganization: decodeInto[Organization],
	typeUser:         decodeInto[User],
	typeTicket:       decodeInto[Ticket],
	typeCustomer:     decodeInto[Customer],
	typeOrder:        decodeInto[Order],
	typeOrderItem:    decodeInto[OrderItem],
	typeDepartment:   decodeInto[Department],
	typeEmployee:     decodeInto[Employee],
	typeLocation:     decodeInto[Location],
	typeRelation:     decodeInto[Relation],
}

func decodeInto[T any, PT interface {
	*T
	Entity
}](item map[string]types.AttributeValue) (Entity, error) {
	var v T
	if err := attributevalue.UnmarshalMap(item, &v); err != nil {
		return nil, apperr.Internal("decode item", err)
	}
	return PT(&v), nil
}

// decodeEntity decodes an item into the entity its `type` attribute names.
func decodeEntity(item map[string]types.AttributeValue) (Entity, error) {
	t := stringAttr(item, attrType)
	dec, ok := decoders[t]
	if !ok {
		return nil, apperr.Internal("decode item", fmt.Errorf("unknown item type %q", t))
	}
	return dec(item)
}

// decodeAs decodes an item that must be a T.
func decodeAs[T Entity](item map[string]types.AttributeValue) (T, error) {
	var zero T
	e, err := decodeEntity(item)
	if err != nil {
		return zero, err
	}
	v, ok := e.(T)
	if !ok {
		return zero, apperr.Internal("decode item", fmt.Errorf("item is a %T, want %T", e, zero))
	}
	return v, nil
}

// encodeItem marshals an entity and adds its key, its type and any index key attributes.
func encodeItem(e Entity, itemType string, indexKeys ...string) (map[string]types.AttributeValue, error) {
	av, err := attributevalue.MarshalMap(e)
	if err != nil {
		return nil, apperr.Internal("encode item", err)
	}
	k := e.Key()
	av[attrPK] = s(k.PK)
	av[attrSK] = s(k.SK)
	av[attrType] = s(itemType)
	if len(indexKeys)%2 != 0 {
		return nil, apperr.Internal("encode item", fmt.Errorf("odd index key list for %s", itemType))
	}
	for i := 0; i < len(indexKeys); i += 2 {
		av[indexKeys[i]] = s(indexKeys[i+1])
	}
	return av, nil
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
