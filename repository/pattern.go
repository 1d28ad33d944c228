package repository

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Operation is the DynamoDB operation an access pattern reads with.
type Operation string

// The operations the API reads with (it never scans). NoCall is an access pattern answered from
// an item another read has at hand.
const (
	Query        Operation = "Query"
	BatchGetItem Operation = "BatchGetItem"
	GetItem      Operation = "GetItem"
	NoCall       Operation = ""
)

// Scaling says how an access pattern's calls grow with an operation.
type Scaling int

const (
	// PerParent is one call per parent object and page: a list's Query. A root list has one
	// parent, the operation.
	PerParent Scaling = iota + 1
	// PerShard is one Query per shard of the order-status index and page: N = ORDER_STATUS_SHARDS
	// (ordersByStatus).
	PerShard
	// PerMonth is one Query per month of a ranking's range, at most MaxRankingMonths
	// (topAccountReps): counted at that bound.
	PerMonth
	// PerLevel is ⌈keys / 100⌉ BatchGetItem calls for the unique keys that every object of one
	// level asks for together, keys the operation has read already excluded (they are primed).
	PerLevel
)

// SortCondition is what an access pattern's Query asks of the sort key of its index.
type SortCondition int

const (
	// WholePartition reads the partition without a condition on the sort key.
	WholePartition SortCondition = iota
	// SortKeyIs names one item: a lookup by key (BatchGetItem, GetItem).
	SortKeyIs
	// SortKeyBeginsWith is begins_with(SK, SortKey[0]).
	SortKeyBeginsWith
	// SortKeyBetween is SK BETWEEN SortKey[0] AND SortKey[1].
	SortKeyBetween
	// SortKeyAtLeast is SK >= SortKey[0].
	SortKeyAtLeast
	// SortKeyAtMost is SK <= SortKey[0].
	SortKeyAtMost
	// SortKeyAfter is SK > SortKey[0].
	SortKeyAfter
)

// An AccessPattern is one way the API reads the table, declared once, beside the entity it reads
// (in the spirit of ElectroDB's access patterns): its index, how its keys are spelled, its order
// and how its calls scale. The read functions build their requests from it (query, input), the
// planner prices and explains operations with it, and the access-pattern table of
// docs/data-model.md is rendered from every declaration (PatternTable, a golden test), so that the
// code, the plan and the documentation cannot disagree.
type AccessPattern struct {
	// ID is the pattern's number in the access-pattern table ("AP5"); several reads may share one
	// (a list, and its parent read together with its first page).
	ID string
	// What is what the pattern answers, in the table's words.
	What string
	// Name is the declaration's Go name.
	Name string
	// Fields are the GraphQL fields the pattern answers (Markdown).
	Fields string
	// Operation is the DynamoDB operation; NoCall for a pattern answered from an item at hand.
	Operation Operation
	// Index is the index read ("" for the table).
	Index string
	// PartitionKey is how the partition key is spelled, placeholders in angle brackets.
	PartitionKey string
	// Sort is the condition on the sort key; SortKey its operands, spelled like PartitionKey.
	Sort    SortCondition
	SortKey []string
	// Backward reads the index from its end (ScanIndexForward = false): newest first.
	Backward bool
	// Filter is the filter expression some reads add, as the documentation spells it ("" for none).
	Filter string
	// Calls is how the pattern's calls scale.
	Calls Scaling
	// Notes is the rest of what the documentation says about the pattern.
	Notes string
}

// keyNames are the key attributes of the pattern's index.
func (p AccessPattern) keyNames() (pk, sk string) {
	for _, ix := range tableIndexes {
		if ix.name == p.Index {
			return ix.pk, ix.sk
		}
	}
	return AttrPK, AttrSK
}

// KeyCondition is the pattern's key, as the documentation and explain spell it:
// "GSI1PK = ORG#<o>#USER#<u> AND begins_with(GSI1SK, "TICKET#")", or for a lookup by key
// "PK = ORG#<o>, SK = USER#<u>" ("PK = SK = DEPT#<d>" where both are the same).
func (p AccessPattern) KeyCondition() string {
	pk, sk := p.keyNames()
	switch p.Sort {
	case SortKeyIs:
		if p.SortKey[0] == p.PartitionKey {
			return pk + " = " + sk + " = " + p.PartitionKey
		}
		return pk + " = " + p.PartitionKey + ", " + sk + " = " + p.SortKey[0]
	case WholePartition:
		return pk + " = " + p.PartitionKey
	}
	return pk + " = " + p.PartitionKey + " AND " + p.sortCondition(sk, p.SortKey, `"`)
}

// sortCondition writes the condition on the sort key sk with operands ops; quote wraps the operand
// of begins_with (the documentation quotes a literal prefix, an expression does not).
func (p AccessPattern) sortCondition(sk string, ops []string, quote string) string {
	switch p.Sort {
	case SortKeyBeginsWith:
		return "begins_with(" + sk + ", " + quote + ops[0] + quote + ")"
	case SortKeyBetween:
		return sk + " BETWEEN " + ops[0] + " AND " + ops[1]
	case SortKeyAtLeast:
		return sk + " >= " + ops[0]
	case SortKeyAtMost:
		return sk + " <= " + ops[0]
	case SortKeyAfter:
		return sk + " > " + ops[0]
	}
	return ""
}

// keyExpression is the pattern's KeyConditionExpression, with the values :pk and :sk (:lo and :hi
// for a range).
func (p AccessPattern) keyExpression() string {
	pk, sk := p.keyNames()
	expr := pk + " = :pk"
	switch p.Sort {
	case WholePartition:
		return expr
	case SortKeyIs:
		return expr + " AND " + sk + " = :sk"
	case SortKeyBetween:
		return expr + " AND " + p.sortCondition(sk, []string{":lo", ":hi"}, "")
	}
	return expr + " AND " + p.sortCondition(sk, []string{":sk"}, "")
}

// keyValues are the values of keyExpression: the partition key, then the sort key's operands.
func (p AccessPattern) keyValues(pk string, sk ...string) map[string]types.AttributeValue {
	values := map[string]types.AttributeValue{":pk": StringValue(pk)}
	switch {
	case p.Sort == SortKeyBetween && len(sk) == 2:
		values[":lo"], values[":hi"] = StringValue(sk[0]), StringValue(sk[1])
	case p.Sort != WholePartition && len(sk) > 0:
		values[":sk"] = StringValue(sk[0])
	}
	return values
}

// Query is a page of the pattern for the partition pk and the sort key's operands sk; scope binds
// its cursors (see PageQuery).
func (p AccessPattern) Query(scope, pk string, sk ...string) PageQuery {
	return PageQuery{index: p.Index, Scope: scope, keyCond: p.keyExpression(), Values: p.keyValues(pk, sk...), descending: p.Backward}
}

// Input is the pattern's Query request, for the reads that page it themselves.
func (p AccessPattern) Input(table, pk string, sk ...string) *dynamodb.QueryInput {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String(p.keyExpression()),
		ExpressionAttributeValues: p.keyValues(pk, sk...),
		ScanIndexForward:          aws.Bool(!p.Backward),
	}
	if p.Index != "" {
		in.IndexName = aws.String(p.Index)
	}
	return in
}

// patterns are every declared access pattern, in the order the package declares them.
var patterns []AccessPattern

// Declare records p among the declared access patterns (the table renders every one) and
// returns it.
func Declare(p AccessPattern) AccessPattern {
	patterns = append(patterns, p)
	return p
}
