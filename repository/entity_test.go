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
		&Customer{ID: "c1", Name: "Cy", Email: "cy@example.com", Addresses: []MailingAddress{{Label: "home", Line1: "2 Elm", City: "Austin", Country: "US"}}, CreatedAt: at,
			OpenOrders: 1, ShippedOrders: 2, DeliveredOrders: 3, CancelledOrders: 4, Counted: true},
		&Order{ID: "r1", CustomerID: "c1", Status: OrderShipped, PlacedAt: at, UpdatedAt: at, TotalCents: 1234, ItemCount: 1, IdempotencyKey: "k"},
		&OrderItem{CustomerID: "c1", OrderID: "r1", Line: 1, SKU: "A-1", ProductName: "Pen", Quantity: 2, UnitPriceCents: 617, ProductID: "p1", WarehouseID: "w1"},
		&Product{ID: "p1", Name: "Pen", SKU: "A-1", CreatedAt: at, TotalInventory: 9, Counted: true},
		&Warehouse{ID: "w1", Name: "North", Region: "eu", CreatedAt: at},
		&Inventory{ProductID: "p1", WarehouseID: "w1", Quantity: 9},
		&RepSales{RepID: "e1", Month: "2024-05", TotalCents: 1234, Orders: 1},
		&JobHistory{ID: "h1", EmployeeID: "e1", JobTitle: "Intern", DepartmentID: "d1", DepartmentName: "Sales", Until: at},
	}
	if len(values) != len(definitions) {
		t.Fatalf("%d values for %d definitions: add the new type here", len(values), len(definitions))
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
	case *Customer:
		return customerEntity.Encode(v)
	case *Order:
		return orderEntity.encodeSharded(v, 4)
	case *OrderItem:
		return orderItemEntity.Encode(v)
	case *Product:
		return productEntity.Encode(v)
	case *Warehouse:
		return warehouseEntity.Encode(v)
	case *Inventory:
		return inventoryEntity.Encode(v)
	case *RepSales:
		return RepSalesEntity.Encode(v)
	case *JobHistory:
		return jobHistoryEntity.Encode(v)
	}
	return nil, nil
}

func TestEncodeRefusesAMissingShardCount(t *testing.T) {
	o := &Order{ID: "r1", CustomerID: "c1", Status: OrderOpen}
	if _, err := orderEntity.Encode(o); err == nil {
		t.Error("orderEntity.encode without a shard count succeeded")
	}
	if _, err := orderEntity.encodeSharded(o, 0); err == nil {
		t.Error("orderEntity.encodeSharded with 0 shards succeeded")
	}
	item, err := customerEntity.Encode(&Customer{ID: "c1", Name: "Cy"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := item["mailingAddresses"]; !ok {
		t.Error("a customer without addresses has no mailingAddresses list")
	}
}
