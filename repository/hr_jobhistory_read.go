package repository

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// JobHistoryOf pages through an employee's earlier jobs, the latest first (AP29: PK = EMP#<e> AND
// begins_with(SK, "JH#"), read backwards).
func (r *Repo) JobHistoryOf(ctx context.Context, employee string, args PageArgs) (Page[*JobHistory], error) {
	if err := checkID("id", employee); err != nil {
		return Page[*JobHistory]{}, err
	}
	pk := empPK(employee)
	return queryPage[*JobHistory](ctx, r, pageQuery{
		scope: join("jobhistory", pk), keyCond: "PK = :pk AND begins_with(SK, :jh)",
		values:     map[string]types.AttributeValue{":pk": s(pk), ":jh": s(jobHistorySKPrefix)},
		descending: true,
	}, args)
}
