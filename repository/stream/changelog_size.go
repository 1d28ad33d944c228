package stream

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// The sizes of the change log's items, estimated: what keeps a chunk under a transaction's 4 MB
// (chunkLen), and what the log's usage reports (bytes kept, units billed).

// itemSize estimates an item's size as DynamoDB counts it: names and values.
func itemSize(item map[string]types.AttributeValue) int {
	size := 0
	for name, v := range item {
		size += len(name) + valueSize(v)
	}
	return size
}

// valueSize estimates one attribute value's size (a number by its digits, nested values with a
// byte of overhead each).
func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return len(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberM:
		return 3 + itemSize(v.Value)
	case *types.AttributeValueMemberL:
		size := 3
		for _, e := range v.Value {
			size += 1 + valueSize(e)
		}
		return size
	case *types.AttributeValueMemberSS:
		return setSize(v.Value)
	case *types.AttributeValueMemberNS:
		return setSize(v.Value)
	}
	return 1
}

func setSize(vals []string) int {
	size := 0
	for _, s := range vals {
		size += len(s)
	}
	return size
}

// transactUnits is what one item of size bytes costs in a transaction on AWS: 2 WCU per KB.
func transactUnits(size int) float64 { return float64(2 * ((size + 1023) / 1024)) }
