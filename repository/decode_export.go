package repository

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// DecodeItem decodes an item of the table into the entity its `type` attribute names, as the
// repository's own reads do: for a tool that reads the table with SDK calls of its own (the
// benchmark's floor).
func DecodeItem(item map[string]types.AttributeValue) (Entity, error) { return DecodeEntity(item) }

// EncodeTicket is the item of t exactly as the repository writes it: for a writer that puts
// tickets with SDK calls of its own (another service's bulk import, as the tests and the
// benchmark play it).
func EncodeTicket(t *Ticket) (map[string]types.AttributeValue, error) { return TicketEntity.Encode(t) }
