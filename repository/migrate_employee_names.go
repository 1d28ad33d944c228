package repository

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/text/unicode/norm"

	"singletable/apperr"
)

// errNameKeyed: the employee's name or job title changed since the migration read it
// (updateEmployee then wrote its keys itself, in today's shape).
var errNameKeyed = apperr.Errorf(apperr.CodeConflict, "the employee's name or job title changed meanwhile")

// keyEmployeeNames brings every employee's name keys to today's shape, which hireEmployee and
// updateEmployee write:
//   - an employee written before employeesByName existed gets its key on GSI3 (AP30): without
//     it, it is never found by its name (EmployeesIndexedByName);
//   - an employee written before names were stored in Unicode NFC (cleanText), say "José" typed
//     with a combining accent, gets its name and job title in NFC and its keys on GSI3 (AP30) and
//     GSI1 (AP12) with them: lookups normalize to NFC, so its old key was never found again
//     (EmployeesNormalized).
//
// It walks the employees through their GSI2 partition (AP13's), never a Scan, and writes each
// employee not in today's shape with one update conditioned on the name and job title it read, so
// a concurrent rename wins (it writes the keys itself); an employee already in today's shape is
// not written. A run cut short is resumed by running it again, and a second run changes nothing.
func (r *Repo) keyEmployeeNames(ctx context.Context) (indexed, normalized int, err error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(r.table),
		IndexName:                 aws.String(gsi2),
		KeyConditionExpression:    aws.String("GSI2PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": StringValue(typePK(typeEmployee))},
	}
	for {
		out, err := r.DB.Query(ctx, in)
		if err != nil {
			return indexed, normalized, apperr.Classify("key employee names", err)
		}
		for _, item := range out.Items {
			e, err := decodeAs[*Employee](item)
			if err != nil {
				return indexed, normalized, err
			}
			name, title := norm.NFC.String(e.Name), norm.NFC.String(e.JobTitle)
			namePK, titlePK := employeeNamePK(name), jobTitlePK(title)
			_, hasNameKey := item[attrGSI3PK]
			if hasNameKey && name == e.Name && title == e.JobTitle &&
				StringAttr(item, attrGSI3PK) == namePK && StringAttr(item, attrGSI1PK) == titlePK {
				continue
			}
			err = r.transact(ctx, "key employee name", []txItem{r.txUpdate(empKey(e.ID),
				"SET #name = :name, #title = :title, GSI1PK = :tpk, GSI3PK = :pk, GSI3SK = :sk",
				"attribute_exists(PK) AND #name = :readName AND #title = :readTitle",
				map[string]string{"#name": "name", "#title": "jobTitle"},
				map[string]types.AttributeValue{
					":name": StringValue(name), ":title": StringValue(title), ":tpk": StringValue(titlePK), ":pk": StringValue(namePK),
					":sk": StringValue(hireSortKey(e.HiredAt, e.ID)), ":readName": StringValue(e.Name), ":readTitle": StringValue(e.JobTitle),
				}, errNameKeyed)})
			switch {
			case errors.Is(err, errNameKeyed):
			case err != nil:
				return indexed, normalized, err
			case !hasNameKey:
				indexed++
			default:
				normalized++
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return indexed, normalized, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}
