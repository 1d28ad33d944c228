package commerce

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
	"singletable/repository/repotest"
)

// Every commerce item decodes into what was encoded, carries its type and keys, and the decoder
// registry finds it by type.
func TestCommerceEntityRoundTrip(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 123_000_000, time.UTC)
	for _, v := range []repository.Entity{
		&Customer{ID: "c1", Name: "Cy", Email: "cy@example.com", Addresses: []MailingAddress{{Label: "home", Line1: "2 Elm", City: "Austin", Country: "US"}}, CreatedAt: at,
			OpenOrders: 1, ShippedOrders: 2, DeliveredOrders: 3, CancelledOrders: 4, Counted: true},
		&Order{ID: "r1", CustomerID: "c1", Status: OrderShipped, PlacedAt: at, UpdatedAt: at, TotalCents: 1234, ItemCount: 1, IdempotencyKey: "k"},
		&OrderItem{CustomerID: "c1", OrderID: "r1", Line: 1, SKU: "A-1", ProductName: "Pen", Quantity: 2, UnitPriceCents: 617, ProductID: "p1", WarehouseID: "w1"},
		&RepSales{RepID: "e1", Month: "2024-05", TotalCents: 1234, Orders: 1},
	} {
		item, err := encodeCommerce(v)
		repotest.CheckRoundTrip(t, v, item, err)
	}
}

// encodeCommerce encodes v with its definition.
func encodeCommerce(v repository.Entity) (map[string]types.AttributeValue, error) {
	switch v := v.(type) {
	case *Customer:
		return customerEntity.Encode(v)
	case *Order:
		return orderEntity.EncodeSharded(v, 4)
	case *OrderItem:
		return orderItemEntity.Encode(v)
	case *RepSales:
		return RepSalesEntity.Encode(v)
	}
	panic("not a commerce entity")
}

func TestEncodeRefusesAMissingShardCount(t *testing.T) {
	o := &Order{ID: "r1", CustomerID: "c1", Status: OrderOpen}
	if _, err := orderEntity.Encode(o); err == nil {
		t.Error("orderEntity.encode without a shard count succeeded")
	}
	if _, err := orderEntity.EncodeSharded(o, 0); err == nil {
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
