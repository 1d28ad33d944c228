package repository

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// MaxTransactItems is TransactWriteItems' limit of actions per transaction.
const MaxTransactItems = 100

// TxItem is one action of a transaction and the error to report when its condition fails.
type TxItem struct {
	Item        types.TransactWriteItem
	onCondition error
	// OnConditionOld, when set, builds that error from the item as it was (the action asks for
	// ReturnValuesOnConditionCheckFailure=ALL_OLD; old is nil if there was no item).
	OnConditionOld func(old map[string]types.AttributeValue) error
}

// Transact runs the actions as one TransactWriteItems. When DynamoDB cancels the transaction, the
// error of the first action whose condition failed is returned; a conflict with a concurrent
// transaction is CONFLICT.
func (r *Repo) Transact(ctx context.Context, op string, items []TxItem) error {
	return r.TransactWithToken(ctx, op, "", items)
}

// TransactWithToken is transact with a ClientRequestToken (none when empty): for ten minutes,
// DynamoDB answers a repeat of the same call (the SDK's own retry after a lost response, say) with
// success instead of applying it twice, and the same token with other parameters with
// IdempotentParameterMismatchException.
func (r *Repo) TransactWithToken(ctx context.Context, op, token string, items []TxItem) error {
	if len(items) > MaxTransactItems {
		return apperr.InvalidInput("input", "this change needs %d writes; one transaction allows at most %d", len(items), MaxTransactItems)
	}
	in := &dynamodb.TransactWriteItemsInput{TransactItems: make([]types.TransactWriteItem, len(items))}
	if token != "" {
		in.ClientRequestToken = aws.String(token)
	}
	for i, it := range items {
		in.TransactItems[i] = it.Item
	}
	_, err := r.DB.TransactWriteItems(ctx, in)
	if err == nil {
		return nil
	}
	var tc *types.TransactionCanceledException
	if errors.As(err, &tc) {
		for i, reason := range tc.CancellationReasons {
			if aws.ToString(reason.Code) != "ConditionalCheckFailed" || i >= len(items) {
				continue
			}
			if items[i].OnConditionOld != nil {
				return items[i].OnConditionOld(reason.Item)
			}
			if items[i].onCondition != nil {
				return items[i].onCondition
			}
		}
		for _, reason := range tc.CancellationReasons {
			if aws.ToString(reason.Code) == "TransactionConflict" {
				return &apperr.Error{Code: apperr.CodeConflict, Message: "a concurrent change touched the same data; retry", Cause: err}
			}
		}
	}
	var inProgress *types.TransactionInProgressException
	if errors.As(err, &inProgress) {
		return &apperr.Error{Code: apperr.CodeConflict, Message: "a concurrent change touched the same data; retry", Cause: err}
	}
	return apperr.Classify(op, err)
}

// PutNew is a Put that fails if an item with the same key exists.
func (r *Repo) PutNew(item map[string]types.AttributeValue, onExists error) TxItem {
	return TxItem{
		Item: types.TransactWriteItem{Put: &types.Put{
			TableName:           aws.String(r.Table()),
			Item:                item,
			ConditionExpression: aws.String("attribute_not_exists(PK)"),
		}},
		onCondition: onExists,
	}
}

// MustExist is a ConditionCheck that the item at k exists.
func (r *Repo) MustExist(k Key, onMissing error) TxItem {
	return TxItem{
		Item: types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName:           aws.String(r.Table()),
			Key:                 k.Attributes(),
			ConditionExpression: aws.String("attribute_exists(PK)"),
		}},
		onCondition: onMissing,
	}
}

// PutNewOrOld is a Put that fails if an item with the same key exists, reporting the error that
// onExists builds from the existing item.
func (r *Repo) PutNewOrOld(item map[string]types.AttributeValue, onExists func(old map[string]types.AttributeValue) error) TxItem {
	return TxItem{
		Item: types.TransactWriteItem{Put: &types.Put{
			TableName:                           aws.String(r.Table()),
			Item:                                item,
			ConditionExpression:                 aws.String("attribute_not_exists(PK)"),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
		OnConditionOld: onExists,
	}
}

func (r *Repo) TxPut(item map[string]types.AttributeValue, cond string, values map[string]types.AttributeValue, onCond error) TxItem {
	p := &types.Put{TableName: aws.String(r.Table()), Item: item}
	if cond != "" {
		p.ConditionExpression = aws.String(cond)
		p.ExpressionAttributeValues = values
	}
	return TxItem{Item: types.TransactWriteItem{Put: p}, onCondition: onCond}
}

func (r *Repo) TxCheck(k Key, cond string, names map[string]string, values map[string]types.AttributeValue, onCond error) TxItem {
	return TxItem{Item: types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName:                 aws.String(r.Table()),
		Key:                       k.Attributes(),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}}, onCondition: onCond}
}

func (r *Repo) TxUpdate(k Key, update, cond string, names map[string]string, values map[string]types.AttributeValue, onCond error) TxItem {
	return TxItem{Item: types.TransactWriteItem{Update: &types.Update{
		TableName:                 aws.String(r.Table()),
		Key:                       k.Attributes(),
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}}, onCondition: onCond}
}

// DeleteIf is a Delete of the item at k on condition cond (none when empty).
func (r *Repo) DeleteIf(k Key, cond string, values map[string]types.AttributeValue, onCond error) TxItem {
	d := &types.Delete{TableName: aws.String(r.Table()), Key: k.Attributes()}
	if cond != "" {
		d.ConditionExpression = aws.String(cond)
		d.ExpressionAttributeValues = values
	}
	return TxItem{Item: types.TransactWriteItem{Delete: d}, onCondition: onCond}
}

// CreateNew writes the new entity v of item type d in ONE transaction with extra (a uniqueness
// guard, a parent that must exist or counts it): v's item must not exist yet (else CONFLICT
// "<what> already exists"), so an ID generated twice cannot overwrite anything.
func CreateNew[T any, PT interface {
	*T
	Entity
}](ctx context.Context, r *Repo, d EntityDef[T, PT], v PT, what string, extra ...TxItem) (PT, error) {
	item, err := d.Encode(v)
	if err != nil {
		return nil, err
	}
	put := r.PutNew(item, apperr.Errorf(apperr.CodeConflict, "%s already exists", what))
	if err := r.Transact(ctx, "create "+what, append(extra, put)); err != nil {
		return nil, err
	}
	return v, nil
}

// TxDelete is a Delete of the item at k, which must exist (a run racing another finds it gone and
// stops rather than writing twice).
func (r *Repo) TxDelete(k Key) TxItem {
	return TxItem{Item: types.TransactWriteItem{Delete: &types.Delete{
		TableName:           aws.String(r.Table()),
		Key:                 k.Attributes(),
		ConditionExpression: aws.String("attribute_exists(PK)"),
	}}, onCondition: apperr.Errorf(apperr.CodeConflict, "the item moved meanwhile; run again")}
}
