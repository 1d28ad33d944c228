package repository

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestKeyTableShowsEveryDefinition(t *testing.T) {
	table := KeyTable()
	for _, d := range definitions {
		if !strings.Contains(table, "| "+d.typeName()+" |") {
			t.Errorf("no row for %s", d.typeName())
		}
	}
	for _, want := range []string{
		"| User | `ORG#<orgId>` | `USER#<userId>` | GSI1: `ORG#<orgId>#USER#<userId> / USER#<userId>` |",
		"GSI1: `DEPT#<targetId>#REL#DEPARTMENT / EMP#<employeeId>`",
		"GSI1: `EMP#<targetId>#REL#MANAGER / EMP#<employeeId>`",
		"GSI2: `TYPE#Employee / <hiredAt>#<employeeId>`",
		"GSI3: `ORDERSTATUS#<status>#<shard> / <orderId>`",
		"| UserEmail | `USEREMAIL#<orgId>#<email>` | `USEREMAIL` |  | userId |",
		"| OrderIdempotency | `IDEMPOTENCY#<customerId>#<key>` | `IDEMPOTENCY` |  | createdAt, orderId, requestHash |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("key table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "2001") {
		t.Errorf("an example time leaked into the table:\n%s", table)
	}
}

// Every definition's items decode into what was encoded, carry their type and keys, and the
// decoder registry finds them by type.
func TestEntityRoundTrip(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 123_000_000, time.UTC)
	values := []Entity{
		&Organization{ID: "o1", Name: "Acme", CreatedAt: at, UserCount: 3, Counted: true},
		&User{ID: "u1", OrgID: "o1", Name: "Ann", Email: "ann@example.com", CreatedAt: at, OpenTickets: 1, PendingTickets: 2, ClosedTickets: 3, Counted: true},
		&Ticket{ID: "t1", OrgID: "o1", ReporterID: "u1", Title: "Down", Body: "It is down", Status: TicketOpen, CreatedAt: at, UpdatedAt: at, Version: 7},
		&TicketVersion{TicketID: "t1", OrgID: "o1", Version: 7, Title: "Down", Body: "It is down", Status: TicketOpen, EditedAt: at},
		&Location{ID: "l1", Country: "United States", State: "California", City: "San Jose", PostalCode: "95110", Address: "1 Main St", CreatedAt: at},
		&Department{ID: "d1", Name: "Sales", Location: LocationRef{Country: "United States", ID: "l1"}, NameVersion: 2, CreatedAt: at, UpdatedAt: at, EmployeeCount: 4, Counted: true},
		&Employee{ID: "e1", Name: "Bo", Email: "bo@example.com", JobTitle: "Engineer", HiredAt: at, DepartmentID: "d1", DepartmentName: "Sales", CreatedAt: at, DirectReportCount: 2, Counted: true},
		&Relation{EmployeeID: "e1", Type: RelManager, TargetID: "e2", UpdatedAt: at},
		&Product{ID: "p1", Name: "Pen", SKU: "A-1", CreatedAt: at, TotalInventory: 9, Counted: true},
		&Warehouse{ID: "w1", Name: "North", Region: "eu", CreatedAt: at},
		&Inventory{ProductID: "p1", WarehouseID: "w1", Quantity: 9},
		&JobHistory{ID: "h1", EmployeeID: "e1", JobTitle: "Intern", DepartmentID: "d1", DepartmentName: "Sales", Until: at},
	}
	for _, v := range values {
		item, err := encodeAny(v)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		k := v.Key()
		if StringAttr(item, AttrPK) != k.PK || StringAttr(item, AttrSK) != k.SK {
			t.Errorf("%T: item keys %q/%q, want %q/%q", v, StringAttr(item, AttrPK), StringAttr(item, AttrSK), k.PK, k.SK)
		}
		got, err := DecodeEntity(item)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("round trip of %T: got %+v, want %+v", v, got, v)
		}
	}
}

// encodeAny encodes v with its definition.
func encodeAny(v Entity) (map[string]types.AttributeValue, error) {
	switch v := v.(type) {
	case *Organization:
		return organizationEntity.Encode(v)
	case *User:
		return UserEntity.Encode(v)
	case *Ticket:
		return TicketEntity.Encode(v)
	case *TicketVersion:
		return TicketVersionEntity.Encode(v)
	case *Location:
		return locationEntity.Encode(v)
	case *Department:
		return departmentEntity.Encode(v)
	case *Employee:
		return employeeEntity.Encode(v)
	case *Relation:
		return relationEntity.Encode(v)
	case *Product:
		return productEntity.Encode(v)
	case *Warehouse:
		return warehouseEntity.Encode(v)
	case *Inventory:
		return inventoryEntity.Encode(v)
	case *JobHistory:
		return jobHistoryEntity.Encode(v)
	}
	return nil, nil
}
