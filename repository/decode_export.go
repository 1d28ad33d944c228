package repository

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// DecodeItem decodes an item of the table into the entity its `type` attribute names, as the
// repository's own reads do: for a tool that reads the table with SDK calls of its own (the
// benchmark's floor).
func DecodeItem(item map[string]types.AttributeValue) (Entity, error) { return DecodeEntity(item) }
