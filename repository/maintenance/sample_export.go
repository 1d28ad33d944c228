package maintenance

import (
	"encoding/base64"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// SampleItems returns the sample dataset, exactly the items -seed writes, in DynamoDB's JSON
// notation ({"PK": {"S": "ORG#..."}, ...}), with shards partitions per order status. The data
// model under deploy/ carries them, so that NoSQL Workbench shows the table as the server fills it.
func SampleItems(shards int) ([]map[string]any, error) {
	items, err := sampleItems(shards)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(items))
	for i, item := range items {
		m, err := attributesJSON(item)
		if err != nil {
			return nil, err
		}
		out[i] = m
	}
	return out, nil
}

func attributesJSON(item map[string]types.AttributeValue) (map[string]any, error) {
	m := make(map[string]any, len(item))
	for k, v := range item {
		j, err := attributeJSON(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", k, err)
		}
		m[k] = j
	}
	return m, nil
}

// attributeJSON writes one attribute value in DynamoDB's JSON notation.
func attributeJSON(v types.AttributeValue) (map[string]any, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}, nil
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}, nil
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}, nil
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": v.Value}, nil
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}, nil
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}, nil
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}, nil
	case *types.AttributeValueMemberBS:
		bs := make([]string, len(v.Value))
		for i, b := range v.Value {
			bs[i] = base64.StdEncoding.EncodeToString(b)
		}
		return map[string]any{"BS": bs}, nil
	case *types.AttributeValueMemberM:
		m, err := attributesJSON(v.Value)
		if err != nil {
			return nil, err
		}
		return map[string]any{"M": m}, nil
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			j, err := attributeJSON(e)
			if err != nil {
				return nil, err
			}
			l[i] = j
		}
		return map[string]any{"L": l}, nil
	}
	return nil, fmt.Errorf("unsupported attribute value %T", v)
}
