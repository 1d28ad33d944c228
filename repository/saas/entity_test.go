package saas

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
	"singletable/repository/repotest"
)

// Every organization, user and ticket item decodes into what was encoded, carries its type and keys, and the decoder
// registry finds it by type.
func TestSaaSEntityRoundTrip(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 123_000_000, time.UTC)
	for _, v := range []repository.Entity{
		&Organization{ID: "o1", Name: "Acme", CreatedAt: at, UserCount: 3, Counted: true},
		&User{ID: "u1", OrgID: "o1", Name: "Ann", Email: "ann@example.com", CreatedAt: at, OpenTickets: 1, PendingTickets: 2, ClosedTickets: 3, Counted: true},
		&Ticket{ID: "t1", OrgID: "o1", ReporterID: "u1", Title: "Down", Body: "It is down", Status: TicketOpen, CreatedAt: at, UpdatedAt: at, Version: 7},
		&TicketVersion{TicketID: "t1", OrgID: "o1", Version: 7, Title: "Down", Body: "It is down", Status: TicketOpen, EditedAt: at},
	} {
		item, err := encodeSaaS(v)
		repotest.CheckRoundTrip(t, v, item, err)
	}
}

// encodeSaaS encodes v with its definition.
func encodeSaaS(v repository.Entity) (map[string]types.AttributeValue, error) {
	switch v := v.(type) {
	case *Organization:
		return organizationEntity.Encode(v)
	case *User:
		return UserEntity.Encode(v)
	case *Ticket:
		return TicketEntity.Encode(v)
	case *TicketVersion:
		return TicketVersionEntity.Encode(v)
	}
	panic("not a saas entity")
}
