package catalog

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"singletable/repository"
)

// The catalog part of the sample dataset: six products stocked in two warehouses. The sample
// orders' lines name these products and warehouses, so a product's order items list them.

// sampleCatalogAt is when the sample catalog was created.
var sampleCatalogAt = time.Date(2026, 1, 20, 8, 0, 0, 0, time.UTC)

// sampleProduct is a product of the sample catalog with its price (the sample orders' lines
// carry it).
type sampleProduct struct {
	SKU, Name  string
	PriceCents int64
}

var SampleProducts = []sampleProduct{
	{"BK-0001", "The DynamoDB Book", 7900},
	{"MUG-042", "Single-table mug", 1450},
	{"TS-ORG-M", "One-to-many T-shirt (M)", 2200},
	{"STK-PACK", "Sticker pack", 399},
	{"KB-65", "65% mechanical keyboard", 12900},
	{"CBL-USBC", "USB-C cable", 990},
}

var SampleWarehouses = []Warehouse{{Name: "São Paulo DC", Region: "sa-east"}, {Name: "Rotterdam DC", Region: "eu-west"}}

func SampleProductID(sku string) string { return repository.SeedID(sampleCatalogAt, "product/"+sku) }

func SampleWarehouseID(i int) string {
	return repository.SeedID(sampleCatalogAt.Add(time.Hour), "warehouse/"+SampleWarehouses[i].Name)
}

// CatalogSampleItems are the warehouses, the products and their stock (every product in both
// warehouses, of fixed quantities), with each product's totalInventory the sum of its stock.
func CatalogSampleItems() ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for i := range SampleWarehouses {
		w := SampleWarehouses[i]
		w.ID, w.CreatedAt = SampleWarehouseID(i), sampleCatalogAt.Add(time.Hour)
		item, err := warehouseEntity.Encode(&w)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	for pi, l := range SampleProducts {
		p := &Product{ID: SampleProductID(l.SKU), Name: l.Name, SKU: l.SKU, CreatedAt: sampleCatalogAt}
		for wi := range SampleWarehouses {
			inv := &Inventory{ProductID: p.ID, WarehouseID: SampleWarehouseID(wi), Quantity: (pi*7+wi*5)%40 + 5}
			p.TotalInventory += inv.Quantity
			item, err := inventoryEntity.Encode(inv)
			if err != nil {
				return nil, err
			}
			items = append(items, item)
		}
		item, err := productEntity.Encode(p)
		if err != nil {
			return nil, err
		}
		items = append(items, item, productSKUGuardItem(p))
	}
	return items, nil
}
