package repository

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/apperr"
)

// errNameIndexed: the employee has its name's index key already, or its name changed since the
// migration read it (updateEmployee then wrote the key itself).
var errNameIndexed = apperr.Errorf(apperr.CodeConflict, "the employee is indexed by name already")

// indexEmployeeNames gives the employees written before employeesByName existed their key on GSI3
// (AP30), which hireEmployee and updateEmployee write today: without it such an employee is
// never found by its name. It walks the employees through their GSI2 partition (AP13's), never a
// Scan, and writes each missing key with one update conditioned on the name it read and on the
// key's absence, so a concurrent rename wins and a second run changes nothing. It reports how
// many it indexed.
func (r *Repo) indexEmployeeNames(ctx context.Context) (int, error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(r.table),
		IndexName:                 aws.String(gsi2),
		KeyConditionExpression:    aws.String("GSI2PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(typePK(typeEmployee))},
	}
	indexed := 0
	for {
		out, err := r.db.Query(ctx, in)
		if err != nil {
			return indexed, apperr.Classify("index employee names", err)
		}
		for _, item := range out.Items {
			if _, has := item[attrGSI3PK]; has {
				continue
			}
			e, err := decodeAs[*Employee](item)
			if err != nil {
				return indexed, err
			}
			err = r.transact(ctx, "index employee name", []txItem{r.txUpdate(empKey(e.ID), "SET GSI3PK = :pk, GSI3SK = :sk",
				"attribute_exists(PK) AND attribute_not_exists(GSI3PK) AND #name = :name", map[string]string{"#name": "name"},
				map[string]types.AttributeValue{":pk": s(employeeNamePK(e.Name)), ":sk": s(hireSortKey(e.HiredAt, e.ID)), ":name": s(e.Name)},
				errNameIndexed)})
			switch {
			case errors.Is(err, errNameIndexed):
			case err != nil:
				return indexed, err
			default:
				indexed++
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return indexed, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}
