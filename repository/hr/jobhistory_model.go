package hr

import (
	"time"

	"singletable/repository"
)

// JobHistory is one earlier job of an employee: the title and department it held until a change
// of either. It lives in the employee's partition (JH#<id>, ids sortable by time), written in the
// same transaction as the change; the current job is the employee's own fields.
type JobHistory struct {
	ID             string    `dynamodbav:"id"`
	EmployeeID     string    `dynamodbav:"employeeId"`
	JobTitle       string    `dynamodbav:"jobTitle"`
	DepartmentID   string    `dynamodbav:"departmentId"`
	DepartmentName string    `dynamodbav:"departmentName"`
	Until          time.Time `dynamodbav:"until"`
}

// Key implements Entity.
func (j *JobHistory) Key() repository.Key { return jobHistoryEntity.Key(j) }

// jobHistoryEntity is the definition of the JobHistory item: in its employee's partition.
var jobHistoryEntity = repository.Define(repository.EntityDef[JobHistory, *JobHistory]{
	Name:     TypeJobHistory,
	Key:      func(j *JobHistory) repository.Key { return jobHistoryKey(j.EmployeeID, j.ID) },
	Examples: func() []*JobHistory { return []*JobHistory{{ID: "<id>", EmployeeID: "<employeeId>"}} },
})

// TypeJobHistory is one earlier job of an employee, in its partition.
const TypeJobHistory = "JobHistory"

// jobHistorySKPrefix starts the sort keys of an employee's earlier jobs: JH#<id>, the id
// time-sortable, so begins_with lists them in the order they ended (AP29, read backwards).
const jobHistorySKPrefix = "JH#"

func jobHistoryKey(e, id string) repository.Key {
	return repository.Key{PK: EmpPK(e), SK: jobHistorySKPrefix + id}
}
