package hr

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
	"singletable/repository/repotest"
)

// Every hr item decodes into what was encoded, carries its type and keys, and the decoder
// registry finds it by type.
func TestHREntityRoundTrip(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 123_000_000, time.UTC)
	for _, v := range []repository.Entity{
		&Location{ID: "l1", Country: "United States", State: "California", City: "San Jose", PostalCode: "95110", Address: "1 Main St", CreatedAt: at},
		&Department{ID: "d1", Name: "Sales", Location: LocationRef{Country: "United States", ID: "l1"}, NameVersion: 2, CreatedAt: at, UpdatedAt: at, EmployeeCount: 4, Counted: true},
		&Employee{ID: "e1", Name: "Bo", Email: "bo@example.com", JobTitle: "Engineer", HiredAt: at, DepartmentID: "d1", DepartmentName: "Sales", CreatedAt: at, DirectReportCount: 2, Counted: true},
		&Relation{EmployeeID: "e1", Type: RelManager, TargetID: "e2", UpdatedAt: at},
		&JobHistory{ID: "h1", EmployeeID: "e1", JobTitle: "Intern", DepartmentID: "d1", DepartmentName: "Sales", Until: at},
	} {
		item, err := encodeHR(v)
		repotest.CheckRoundTrip(t, v, item, err)
	}
}

// encodeHR encodes v with its definition.
func encodeHR(v repository.Entity) (map[string]types.AttributeValue, error) {
	switch v := v.(type) {
	case *Location:
		return locationEntity.Encode(v)
	case *Department:
		return departmentEntity.Encode(v)
	case *Employee:
		return employeeEntity.Encode(v)
	case *Relation:
		return relationEntity.Encode(v)
	case *JobHistory:
		return jobHistoryEntity.Encode(v)
	}
	panic("not a hr entity")
}
