package repository

import (
	"context"
)

// JobHistoryOf pages through an employee's earlier jobs, the latest first (AP29: PK = EMP#<e> AND
// begins_with(SK, "JH#"), read backwards).
func (r *Repo) JobHistoryOf(ctx context.Context, employee string, args PageArgs) (Page[*JobHistory], error) {
	if err := checkID("id", employee); err != nil {
		return Page[*JobHistory]{}, err
	}
	pk := empPK(employee)
	return queryPage[*JobHistory](ctx, r, JobHistoryOf.query(join("jobhistory", pk), pk, jobHistorySKPrefix), args)
}
