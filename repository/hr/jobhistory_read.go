package hr

import (
	"context"

	"singletable/repository"
)

// JobHistoryOf pages through an employee's earlier jobs, the latest first (AP29: PK = EMP#<e> AND
// begins_with(SK, "JH#"), read backwards).
func (r *HR) JobHistoryOf(ctx context.Context, employee string, args repository.PageArgs) (repository.Page[*JobHistory], error) {
	if err := repository.CheckID("id", employee); err != nil {
		return repository.Page[*JobHistory]{}, err
	}
	pk := EmpPK(employee)
	return repository.QueryPage[*JobHistory](ctx, r.Repo, JobHistoryOf.Query(repository.Join("jobhistory", pk), pk, jobHistorySKPrefix), args)
}
