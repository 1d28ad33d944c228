package maintenance

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/text/unicode/norm"

	"singletable/apperr"
	"singletable/repository"
	"singletable/repository/hr"
)

// errNameKeyed: the employee's name or job title changed since the migration read it
// (updateEmployee then wrote its keys itself, in today's shape).
var errNameKeyed = apperr.Errorf(apperr.CodeConflict, "the employee's name or job title changed meanwhile")

// keyEmployeeNames brings every employee's name keys to today's shape, which hireEmployee and
// updateEmployee write:
//   - an employee written before employeesByName existed gets its key on GSI3 (AP30): without
//     it, it is never found by its name (EmployeesIndexedByName);
//   - an employee written before names were stored in Unicode NFC (CleanText), say "José" typed
//     with a combining accent, gets its name and job title in NFC and its keys on GSI3 (AP30) and
//     GSI1 (AP12) with them: lookups normalize to NFC, so its old key was never found again
//     (EmployeesNormalized).
//
// It walks the employees through their GSI2 partition (AP13's), never a Scan, and writes each
// employee not in today's shape with one update conditioned on the name and job title it read, so
// a concurrent rename wins (it writes the keys itself); an employee already in today's shape is
// not written. A run cut short is resumed by running it again, and a second run changes nothing.
func (r *Maintenance) keyEmployeeNames(ctx context.Context) (indexed, normalized int, err error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(r.Table()),
		IndexName:                 aws.String(repository.GSI2),
		KeyConditionExpression:    aws.String("GSI2PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": repository.StringValue(repository.TypePK(hr.TypeEmployee))},
	}
	for {
		out, err := r.DB.Query(ctx, in)
		if err != nil {
			return indexed, normalized, apperr.Classify("key employee names", err)
		}
		for _, item := range out.Items {
			e, err := repository.DecodeAs[*hr.Employee](item)
			if err != nil {
				return indexed, normalized, err
			}
			name, title := norm.NFC.String(e.Name), norm.NFC.String(e.JobTitle)
			namePK, titlePK := hr.EmployeeNamePK(name), hr.JobTitlePK(title)
			_, hasNameKey := item[repository.AttrGSI3PK]
			if hasNameKey && name == e.Name && title == e.JobTitle &&
				repository.StringAttr(item, repository.AttrGSI3PK) == namePK && repository.StringAttr(item, repository.AttrGSI1PK) == titlePK {
				continue
			}
			err = r.Transact(ctx, "key employee name", []repository.TxItem{r.TxUpdate(hr.EmpKey(e.ID),
				"SET #name = :name, #title = :title, GSI1PK = :tpk, GSI3PK = :pk, GSI3SK = :sk",
				"attribute_exists(PK) AND #name = :readName AND #title = :readTitle",
				map[string]string{"#name": "name", "#title": "jobTitle"},
				map[string]types.AttributeValue{
					":name": repository.StringValue(name), ":title": repository.StringValue(title), ":tpk": repository.StringValue(titlePK), ":pk": repository.StringValue(namePK),
					":sk": repository.StringValue(hr.HireSortKey(e.HiredAt, e.ID)), ":readName": repository.StringValue(e.Name), ":readTitle": repository.StringValue(e.JobTitle),
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
