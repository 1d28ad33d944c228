package catalog

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
	"singletable/repository/repotest"
)

// Every catalog item decodes into what was encoded, carries its type and keys, and the decoder
// registry finds it by type.
func TestCatalogEntityRoundTrip(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 123_000_000, time.UTC)
	for _, v := range []repository.Entity{
		&Product{ID: "p1", Name: "Pen", SKU: "A-1", CreatedAt: at, TotalInventory: 9, Counted: true},
		&Warehouse{ID: "w1", Name: "North", Region: "eu", CreatedAt: at},
		&Inventory{ProductID: "p1", WarehouseID: "w1", Quantity: 9},
	} {
		item, err := encodeCatalog(v)
		repotest.CheckRoundTrip(t, v, item, err)
	}
}

// encodeCatalog encodes v with its definition.
func encodeCatalog(v repository.Entity) (map[string]types.AttributeValue, error) {
	switch v := v.(type) {
	case *Product:
		return productEntity.Encode(v)
	case *Warehouse:
		return warehouseEntity.Encode(v)
	case *Inventory:
		return inventoryEntity.Encode(v)
	}
	panic("not a catalog entity")
}
