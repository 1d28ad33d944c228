package repository

import (
	"context"
)

// JobHistoryOf pages through an employee's earlier jobs, the latest first (AP29: PK = EMP#<e> AND
// begins_with(SK, "JH#"), read backwards).
func (r *Repo) JobHistoryOf(ctx context.Context, employee string, args PageArgs) (Page[*JobHistory], error) {
	if err := CheckID("id", employee); err != nil {
		return Page[*JobHistory]{}, err
	}
	pk := EmpPK(employee)
	return QueryPage[*JobHistory](ctx, r, JobHistoryOf.Query(Join("jobhistory", pk), pk, jobHistorySKPrefix), args)
}
