package repository

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The catalog part of the sample dataset: six products stocked in two warehouses. The sample
// orders' lines name these products and warehouses, so a product's order items list them.

// sampleCatalogAt is when the sample catalog was created.
var sampleCatalogAt = time.Date(2026, 1, 20, 8, 0, 0, 0, time.UTC)

var sampleProducts = []OrderLine{
	{SKU: "BK-0001", ProductName: "The DynamoDB Book", UnitPriceCents: 7900},
	{SKU: "MUG-042", ProductName: "Single-table mug", UnitPriceCents: 1450},
	{SKU: "TS-ORG-M", ProductName: "One-to-many T-shirt (M)", UnitPriceCents: 2200},
	{SKU: "STK-PACK", ProductName: "Sticker pack", UnitPriceCents: 399},
	{SKU: "KB-65", ProductName: "65% mechanical keyboard", UnitPriceCents: 12900},
	{SKU: "CBL-USBC", ProductName: "USB-C cable", UnitPriceCents: 990},
}

var sampleWarehouses = []Warehouse{{Name: "São Paulo DC", Region: "sa-east"}, {Name: "Rotterdam DC", Region: "eu-west"}}

func sampleProductID(sku string) string { return seedID(sampleCatalogAt, "product/"+sku) }

func sampleWarehouseID(i int) string {
	return seedID(sampleCatalogAt.Add(time.Hour), "warehouse/"+sampleWarehouses[i].Name)
}

// sampleLine is sample product i as an order line taking its stock from warehouse w.
func sampleLine(i, w int) OrderLine {
	l := sampleProducts[i]
	l.ProductID, l.WarehouseID = sampleProductID(l.SKU), sampleWarehouseID(w)
	return l
}

// catalogSampleItems are the warehouses, the products and their stock (every product in both
// warehouses, of fixed quantities), with each product's totalInventory the sum of its stock.
func catalogSampleItems() ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for i := range sampleWarehouses {
		w := sampleWarehouses[i]
		w.ID, w.CreatedAt = sampleWarehouseID(i), sampleCatalogAt.Add(time.Hour)
		item, err := warehouseEntity.encode(&w)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	for pi, l := range sampleProducts {
		p := &Product{ID: sampleProductID(l.SKU), Name: l.ProductName, SKU: l.SKU, CreatedAt: sampleCatalogAt}
		for wi := range sampleWarehouses {
			inv := &Inventory{ProductID: p.ID, WarehouseID: sampleWarehouseID(wi), Quantity: (pi*7+wi*5)%40 + 5}
			p.TotalInventory += inv.Quantity
			item, err := inventoryEntity.encode(inv)
			if err != nil {
				return nil, err
			}
			items = append(items, item)
		}
		item, err := productEntity.encode(p)
		if err != nil {
			return nil, err
		}
		items = append(items, item, productSKUGuardItem(p))
	}
	return items, nil
}
